import type { ClientCapabilities, ServerRequest } from "@modelcontextprotocol/client";

/**
 * What a backend's request needs of the client it would go to, in words,
 * where the client did not declare it: MCP forbids sending a client a
 * request its capabilities do not cover (roots/list without `roots`, a URL
 * elicitation without `elicitation.url`, sampling with tools without
 * `sampling.tools`). A bare `elicitation: {}` offers forms, as it did
 * before elicitation had modes. Nothing where the client offers it.
 *
 * @example
 * capabilityLacking({ method: "roots/list" }, {}) // "roots"
 */
export function capabilityLacking(
  request: ServerRequest,
  declared: ClientCapabilities,
): string | undefined {
  switch (request.method) {
    case "roots/list":
      return declared.roots === undefined ? "roots" : undefined;
    case "sampling/createMessage": {
      if (declared.sampling === undefined) return "sampling";
      const { tools, toolChoice } = request.params;
      const withTools = tools !== undefined || toolChoice !== undefined;
      return withTools && declared.sampling.tools === undefined ? "sampling with tools" : undefined;
    }
    case "elicitation/create": {
      const offered = declared.elicitation;
      if (offered === undefined) return "elicitation";
      if (request.params.mode === "url")
        return offered.url === undefined ? "elicitation by URL" : undefined;
      const bare = offered.form === undefined && offered.url === undefined;
      return bare || offered.form !== undefined ? undefined : "elicitation by form";
    }
    default:
      return undefined;
  }
}
