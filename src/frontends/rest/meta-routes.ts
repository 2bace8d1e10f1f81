import { Hono, type Context } from "hono";
import type { Broker } from "../../broker/broker.js";
import { BrokerError } from "../../contract/errors.js";
import type { AuthEnv } from "../http/token-auth/index.js";
import type { CallAnswer } from "../../broker/meta-api/answers.js";
import { parseRequest } from "../../broker/meta-api/parse-request.js";
import { viewOf } from "../../tasks/task.js";
import {
  CallRequest,
  DescribeRequest,
  RunRequest,
  SearchRequest,
  TreeRequest,
  TREE_PAGE,
} from "../../broker/meta-api/requests.js";

/**
 * `POST /meta_tree`, `/meta_desc`, `/meta_call`, `/meta_search` and
 * `/meta_run`: JSON in, JSON out. A script that failed is still answered
 * 200, its `error` saying why; a run the policy refuses is an error. A call's answer says when its output was cut
 * (`truncated`) or had keys removed (`redacted`), and how long the call took
 * (`Server-Timing: call;dur=…`, in milliseconds). With `Prefer: respond-async`,
 * a call is a task: `202`, its `{"task"}` and `Location: /tasks/<id>`; so is
 * a call that waits for an approval longer than `approvals.wait_s`.
 * Errors are thrown as BrokerError and encoded by the app's error handler.
 */
export function metaRoutes(broker: Broker): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.post("/meta_tree", async (c) => {
    const { path, offset = 0 } = parseRequest(TreeRequest, await jsonBody(c));
    return c.json(broker.list(path, c.get("principal"), offset));
  });
  app.post("/meta_desc", async (c) => {
    const request = parseRequest(DescribeRequest, await jsonBody(c));
    return c.json(broker.metaDesc(request, c.get("principal"), TREE_PAGE));
  });
  app.post("/meta_search", async (c) => {
    const request = parseRequest(SearchRequest, await jsonBody(c));
    return c.json(await broker.search(request, c.get("principal"), c.req.raw.signal));
  });
  app.post("/meta_call", async (c) => {
    const { path, args } = parseRequest(CallRequest, await jsonBody(c));
    const started = performance.now();
    let redacted = false;
    let unkept: string | undefined;
    const caller = {
      signal: c.req.raw.signal,
      principal: c.get("principal"),
      idempotencyKey: c.req.header("idempotency-key"),
      redacted: () => (redacted = true),
      unkept: (why: string) => (unkept = why),
    };
    if (respondAsync(c.req.header("prefer"))) {
      const started = await broker.tasks.start(path, args, caller, 0);
      if ("task" in started) {
        c.header("preference-applied", "respond-async");
        c.header("location", `/tasks/${started.task.id}`);
        return c.json({ task: viewOf(started.task) }, 202);
      }
    }
    const out = await broker.call(path, args, caller);
    c.header("server-timing", `call;dur=${(performance.now() - started).toFixed(1)}`);
    const answer: CallAnswer = { path: out.path, is_error: out.isError, output: out.output };
    if (out.truncated) answer.truncated = true;
    if (redacted) answer.redacted = true;
    if (unkept !== undefined) answer.idempotency = { kept: false, why: unkept };
    return c.json(answer);
  });
  app.post("/meta_run", async (c) => {
    const request = parseRequest(RunRequest, await jsonBody(c));
    const answer = await broker.run(request, {
      signal: c.req.raw.signal,
      principal: c.get("principal"),
    });
    return c.json(answer);
  });
  return app;
}

/** Whether a `Prefer` header (RFC 7240) asks for `respond-async`. */
function respondAsync(prefer: string | undefined): boolean {
  return (prefer ?? "")
    .split(",")
    .some((p) => p.split(";")[0]!.trim().toLowerCase() === "respond-async");
}

async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") {
    throw new BrokerError(
      "invalid_params",
      `request body is empty; send a JSON object such as ${c.req.path === "/meta_search" ? '{"query": "read a file"}' : '{"path": "/"}'}`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new BrokerError(
      "invalid_params",
      `request body is not valid JSON: ${(err as Error).message}`,
    );
  }
}
