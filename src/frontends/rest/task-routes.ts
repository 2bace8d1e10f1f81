import { Hono, type Context } from "hono";
import type { Broker } from "../../broker/broker.js";
import { parseRequest } from "../../broker/meta-api/parse-request.js";
import { DecisionRequest, TaskListQuery } from "../../broker/meta-api/requests.js";
import { BrokerError } from "../../contract/errors.js";
import { parseJson } from "../../contract/json-text.js";
import { viewOf } from "../../tasks/task.js";
import type { AuthEnv } from "../http/token-auth/index.js";

/**
 * The tasks of REST: `GET /tasks/<id>` (status, and the result as `meta_call`
 * gives it once completed), `DELETE /tasks/<id>` (cancels; the backend call
 * is cancelled too), `GET /tasks?status=…` (those the token may see), and
 * `POST /tasks/<id>/approve` or `/deny` with an optional `{"reason"}`.
 * A task is another token's business unless it is the caller, an admin of
 * the tool's path, or may approve its calls: to any other it is not there.
 */
export function taskRoutes(broker: Broker): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get("/tasks", async (c) => {
    const { status } = parseRequest(TaskListQuery, c.req.query());
    const tasks = await broker.tasks.list(c.get("principal"), status);
    return c.json({ tasks: tasks.map(viewOf) });
  });
  app.get("/tasks/:id", async (c) =>
    c.json({ task: viewOf(await broker.tasks.get(c.req.param("id"), c.get("principal"))) }),
  );
  app.delete("/tasks/:id", async (c) =>
    c.json({ task: viewOf(await broker.tasks.cancel(c.req.param("id"), c.get("principal"))) }),
  );
  app.post("/tasks/:id/approve", async (c) => {
    const { reason } = parseRequest(DecisionRequest, await optionalBody(c));
    const task = await broker.approvals.approve(c.req.param("id"), c.get("principal"), reason);
    return c.json({ task: viewOf(task) });
  });
  app.post("/tasks/:id/deny", async (c) => {
    const { reason } = parseRequest(DecisionRequest, await optionalBody(c));
    const task = await broker.approvals.deny(c.req.param("id"), c.get("principal"), reason);
    return c.json({ task: viewOf(task) });
  });
  return app;
}

/** A JSON object body, or `{}` where there is none. */
async function optionalBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  const body = parseJson(text);
  if (body === undefined)
    throw new BrokerError(
      "invalid_params",
      'request body is not JSON; send {"reason": "…"} or nothing',
    );
  return body;
}
