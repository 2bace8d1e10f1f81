import { BrokerError } from "../contract/errors.js";
import type { Router } from "../contract/router.js";
import type { Request, Result } from "../policy/link.js";

/**
 * The end of the policy chain: a request handed to the method of the source
 * that answers it. A source without that method (no prompts, say) is
 * `not_found`, marked `unsupported` so MCP answers it as an unknown method.
 */
export async function dispatch(router: Router, request: Request): Promise<Result> {
  const { ctx } = request;
  switch (request.kind) {
    case "tools/call":
      return router.callTool(request.leaf.toolName, request.args, ctx);
    case "resources/list":
      return offered(router, "listResources", "resources")(request.params, ctx);
    case "resources/templates/list":
      return offered(router, "listResourceTemplates", "resource templates")(request.params, ctx);
    case "resources/read":
      return offered(router, "readResource", "resources")(request.params, ctx);
    case "resources/subscribe":
      await offered(router, "subscribe", "resource subscriptions")(request.params.uri, ctx);
      return {};
    case "resources/unsubscribe":
      await offered(router, "unsubscribe", "resource subscriptions")(request.params.uri, ctx);
      return {};
    case "prompts/list":
      return offered(router, "listPrompts", "prompts")(request.params, ctx);
    case "prompts/get":
      return offered(router, "getPrompt", "prompts")(request.params, ctx);
    case "completion/complete":
      return offered(router, "complete", "completion")(request.params, ctx);
    case "logging/setLevel":
      await offered(router, "setLoggingLevel", "logging")(request.params.level, ctx);
      return {};
  }
}

type OptionalMethod =
  | "listResources"
  | "listResourceTemplates"
  | "readResource"
  | "subscribe"
  | "unsubscribe"
  | "listPrompts"
  | "getPrompt"
  | "complete"
  | "setLoggingLevel";

function offered<K extends OptionalMethod>(
  router: Router,
  method: K,
  what: string,
): NonNullable<Router[K]> {
  const fn = router[method];
  if (typeof fn !== "function") {
    throw new BrokerError("not_found", `source ${router.name} does not offer ${what}`, {
      source: router.name,
      unsupported: true,
    });
  }
  return fn.bind(router) as NonNullable<Router[K]>;
}
