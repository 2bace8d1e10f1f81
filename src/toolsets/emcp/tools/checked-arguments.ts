import { BrokerError } from "../../../contract/errors.js";
import { compileArgsSchema } from "../../../tree/args-validator.js";
import type { EmcpTool } from "./tool.js";

/**
 * The tool, with its arguments checked before any SQL is built: against its
 * own input schema (types, integer ranges, list lengths: the contract's
 * -32602 does not depend on the broker validating first), and for NUL
 * characters, which PostgreSQL refuses in text where MariaDB and SQLite store
 * them, so that all three engines answer a call alike.
 */
export function withCheckedArguments(tool: EmcpTool): EmcpTool {
  // Read at the first call, not when the source is made: checking fourteen
  // schemas against JSON Schema's own held up the broker's start by a tenth of a second.
  let validate: ((args: Record<string, unknown>) => void) | undefined;
  return {
    definition: tool.definition,
    run(cms, args) {
      validate ??= compileArgsSchema(tool.definition.inputSchema);
      validate(args);
      const nul = pathOfNul(args);
      if (nul !== undefined) {
        throw new BrokerError(
          "invalid_params",
          `argument '${nul}' contains a NUL character (\\u0000), which no engine compares; remove it`,
          { argument: nul },
        );
      }
      return tool.run(cms, args);
    },
  };
}

/** Where in the arguments a string holds U+0000, as `tv_filters[0].value`; undefined if nowhere. */
function pathOfNul(args: Record<string, unknown>): string | undefined {
  const stack: [unknown, string][] = Object.entries(args).map(([k, v]) => [v, k]);
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [value, path] = top;
    if (typeof value === "string") {
      if (value.includes("\u0000")) return path;
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push([v, `${path}[${i}]`]));
    } else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) stack.push([v, `${path}.${k}`]);
    }
  }
  return undefined;
}
