import { Hono } from "hono";
import { z } from "zod";
import type { Broker } from "../../broker/broker.js";
import { parseRequest } from "../../broker/meta-api/parse-request.js";
import { BrokerError } from "../../contract/errors.js";
import { parseJson } from "../../contract/json-text.js";
import type { AuthEnv } from "../http/token-auth/index.js";

const ApproveRequest = z.strictObject({
  path: z.string().startsWith("/").describe("The tool's path, as GET /pins names it."),
});

/**
 * Pinned tool definitions, for admins of the tools' paths: `GET /pins` lists
 * the tools whose definition is not the one pinned (changed, new on a pinned
 * source, or holding suspicious text), each with what differs and a unified
 * diff; `POST /pins/approve {"path"}` pins what is offered now, and answers
 * once the tree has the tool as it is.
 */
export function pinRoutes(broker: Broker): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.get("/pins", (c) => c.json({ changes: broker.definitionChanges(c.get("principal")) }));
  app.post("/pins/approve", async (c) => {
    const body = parseJson(await c.req.text());
    if (body === undefined)
      throw new BrokerError("invalid_params", 'request body is not JSON; send {"path": "/a/tool"}');
    const { path } = parseRequest(ApproveRequest, body);
    return c.json({ path, pin: await broker.approveDefinition(path, c.get("principal")) });
  });
  return app;
}
