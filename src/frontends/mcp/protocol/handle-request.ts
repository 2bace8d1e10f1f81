import {
  ProtocolError,
  type CallToolResult,
  type ServerResult,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { jsonPath } from "../../../config/errors.js";
import { BrokerError, type ErrorProfile } from "../../../contract/errors.js";
import type { Logger } from "../../../contract/log.js";
import { asToolError } from "./call-result.js";
import { protocolError } from "./protocol-error.js";
import type { HandlerHost } from "./handler-host.js";
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
  const method = schema.shape.method.value;
  const profile = options.profile ?? "mcp";
  const serve = async (raw: unknown, extra: RequestExtra): Promise<ServerResult> => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw invalidRequest(method, parsed.error);
    try {
      return await handler(parsed.data, extra);
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      if (!(err instanceof BrokerError) || err.kind === "internal")
        options.log.error({ err, method }, "MCP request failed");
      if (method === "tools/call") return asToolError(err, profile) satisfies CallToolResult;
      throw protocolError(err, profile);
    }
  };
  const serveBoth = ([raw, extra]: [unknown, RequestExtra]) => serve(raw, extra);
  const answer = (raw: unknown, extra: RequestExtra): Promise<ServerResult> => {
    if (!observing()) return serve(raw, extra);
    const params = (raw as { params?: { _meta?: unknown; name?: unknown; uri?: unknown } }).params;
    const target = params?.name ?? params?.uri;
    const identity = extra.identity;
    return servedOperation(
      {
        method,
        target: typeof target === "string" ? target : undefined,
        attributes: identity && {
          [JSONRPC_REQUEST_ID]: String(identity.requestId),
          ...(identity.sessionId ? { [MCP_SESSION]: identity.sessionId } : {}),
          ...(identity.protocolVersion ? { [MCP_PROTOCOL_VERSION]: identity.protocolVersion } : {}),
        },
      },
      parentOf(params?._meta),
      serveBoth,
      [raw, extra],
    );
  };
  host.handle(method, answer);
}

function invalidRequest(method: string, error: z.ZodError): ProtocolError {
  const problems = error.issues.map((issue) => `${jsonPath(issue.path)}: ${issue.message}`);
  return new ProtocolError(-32602, `invalid ${method} request: ${problems.join("; ")}`, {
    problems,
  });
}
