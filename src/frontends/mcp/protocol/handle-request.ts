import {
  ProtocolError,
  type CallToolResult,
  type ServerResult,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { jsonPath } from "../../../config/errors.js";
import { BrokerError, type ErrorProfile } from "../../../contract/errors.js";
import { KEY_MEANT } from "../../../contract/key-meant.js";
import type { Logger } from "../../../contract/log.js";
import { asToolError } from "./call-result.js";
import { protocolError } from "./protocol-error.js";
import type { HandlerHost, MethodAnswer } from "./handler-host.js";
import type { RequestExtra } from "./request-context.js";
import {
  JSONRPC_REQUEST_ID,
  MCP_PROTOCOL_VERSION,
  MCP_SESSION,
} from "../../../telemetry/mcp-attributes.js";
import { observing, parentOf, servedOperation } from "../../../telemetry/mcp-operation.js";

/** An SDK request schema: its `method` literal and the shape of its params. */
type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string> }>;

export interface HandlerOptions {
  readonly log: Logger;
  readonly profile?: ErrorProfile;
}

/**
 * Serves one MCP method with the broker's own failure handling:
 *
 * - the request is checked against the SDK's schema here, so a malformed one
 *   (a `tools/call` without `name`, `arguments` as an array) is -32602 with
 *   a message naming each field, where the SDK would answer -32603 with the
 *   validator's dump;
 * - a failure is encoded by the error profile: for `tools/call`, as a tool
 *   result the model can act on where the profile says so; otherwise as a
 *   JSON-RPC error;
 * - an internal failure is logged with its cause before the client gets the
 *   generic "internal error" (its text may hold paths or secrets).
 */
export function handleRequest<S extends RequestSchema>(
  host: HandlerHost,
  schema: S,
  options: HandlerOptions,
  handler: (request: z.infer<S>, extra: RequestExtra) => Promise<ServerResult>,
): void {
  const serving = new MethodServing(schema, options, handler);
  host.handle(serving.name, serving);
}

/**
 * One method of one server. Its functions are its class's, not closures made
 * for each server: every session's server holds one of these for each method
 * it serves, so what one holds is paid once per method and open session.
 */
class MethodServing<S extends RequestSchema> implements MethodAnswer {
  readonly name: string;
  private readonly profile: ErrorProfile;

  constructor(
    private readonly schema: S,
    private readonly options: HandlerOptions,
    private readonly handler: (request: z.infer<S>, extra: RequestExtra) => Promise<ServerResult>,
  ) {
    this.name = schema.shape.method.value;
    this.profile = options.profile ?? "mcp";
  }

  answer(raw: unknown, extra: RequestExtra): Promise<ServerResult> {
    if (!observing()) return this.serve(raw, extra);
    const params = (raw as { params?: { _meta?: unknown; name?: unknown; uri?: unknown } }).params;
    const target = params?.name ?? params?.uri;
    const identity = extra.identity;
    return servedOperation(
      {
        method: this.name,
        target: typeof target === "string" ? target : undefined,
        attributes: identity && {
          [JSONRPC_REQUEST_ID]: String(identity.requestId),
          ...(identity.sessionId ? { [MCP_SESSION]: identity.sessionId } : {}),
          ...(identity.protocolVersion ? { [MCP_PROTOCOL_VERSION]: identity.protocolVersion } : {}),
        },
      },
      parentOf(params?._meta),
      serveOne,
      [this, raw, extra],
    );
  }

  async serve(raw: unknown, extra: RequestExtra): Promise<ServerResult> {
    const parsed = this.schema.safeParse(raw, KEY_MEANT);
    if (!parsed.success) throw invalidRequest(this.name, parsed.error);
    try {
      return await this.handler(parsed.data, extra);
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      if (!(err instanceof BrokerError) || err.kind === "internal")
        this.options.log.error({ err, method: this.name }, "MCP request failed");
      if (this.name === "tools/call")
        return asToolError(err, this.profile) satisfies CallToolResult;
      throw protocolError(err, this.profile);
    }
  }
}

/** `servedOperation` runs its operation on an input: no closure is made per call. */
function serveOne([method, raw, extra]: [
  MethodServing<RequestSchema>,
  unknown,
  RequestExtra,
]): Promise<ServerResult> {
  return method.serve(raw, extra);
}

function invalidRequest(method: string, error: z.ZodError): ProtocolError {
  const problems = error.issues.map((issue) => `${jsonPath(issue.path)}: ${issue.message}`);
  return new ProtocolError(-32602, `invalid ${method} request: ${problems.join("; ")}`, {
    problems,
  });
}
