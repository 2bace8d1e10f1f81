import type { CallToolResult, ServerCapabilities, Tool } from "@modelcontextprotocol/server";
import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import type { CallContext, Router } from "../../contract/router.js";
import { HostAllowlist } from "../../net/host-allowlist.js";
import { guardedRequest, NotReached, RequestFailed } from "../../net/guarded-request.js";
import { buildRequest } from "./build-request.js";
import { callResult } from "./call-result.js";
import type { OpenApiSourceConfig } from "./config.js";
import { loadDocument } from "./load-document.js";
import { operationsOf, type Operation } from "./operations.js";
import { operationTool, type OperationTool } from "./tool-schema.js";

const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * A REST API described by an OpenAPI document, one tool per operation. The
 * document is read at start (and again at every restart); a call is one
 * HTTP request to the API, through the broker's outbound guard: only the
 * API's host (and `allowed_hosts`) may be reached, redirects included.
 */
export class OpenApiSource implements Router {
  private tools = new Map<string, { operation: Operation; shape: OperationTool }>();
  private base = "";
  private title: string | undefined;

  constructor(
    readonly name: string,
    private readonly config: OpenApiSourceConfig,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const document = await loadDocument(this.config.spec);
    const info = document.info as { title?: unknown; description?: unknown } | undefined;
    this.title = typeof info?.description === "string" ? info.description : undefined;
    this.base = this.config.base_url ?? serverOf(document, this.config.spec);
    const tools = new Map<string, { operation: Operation; shape: OperationTool }>();
    const warn = (message: string) => this.log.warn({ source: this.name }, message);
    for (const operation of operationsOf(document, this.config.operations, warn))
      tools.set(operation.name, { operation, shape: operationTool(operation) });
    this.tools = tools;
  }

  instructions(): string | undefined {
    return this.title;
  }

  capabilities(): ServerCapabilities {
    return { tools: {} };
  }

  async listTools(): Promise<Tool[]> {
    return [...this.tools.values()].map((t) => t.shape.tool);
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    const found = this.tools.get(name);
    if (!found)
      throw new BrokerError("not_found", `no operation "${name}" in this API`, { tool: name });
    let request;
    try {
      request = buildRequest(found.operation, found.shape.places, args, this.base, {
        auth: this.config.auth,
        headers: this.config.headers,
      });
    } catch (err) {
      throw new BrokerError("invalid_params", (err as Error).message);
    }
    try {
      const answer = await guardedRequest(request.url.href, {
        method: request.method as Parameters<typeof guardedRequest>[1]["method"],
        headers: request.headers,
        ...(request.body ? { body: request.body } : {}),
        policy: this.policy(),
        maxBytes: this.config.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        signal: ctx.signal,
      });
      return callResult(answer);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (err instanceof RequestFailed)
        throw new BrokerError(
          err instanceof NotReached ? "unavailable" : "execution_failed",
          `${found.operation.method} ${found.operation.path}: ${err.message}`,
        );
      throw err;
    }
  }

  /** Nothing is held open between calls (the connections are the shared agents'). */
  async close(): Promise<void> {
    this.tools = new Map();
  }

  /** The API's host and the operator's additions: where its requests may go. */
  private policy(): HostAllowlist {
    const host = new URL(this.base).hostname.replace(/^\[|\]$/g, "");
    return new HostAllowlist(
      [host, ...(this.config.allowed_hosts ?? [])],
      `the API's host and allowed_hosts of ${this.name}`,
    );
  }
}

/** The document's first server, resolved against where the document came from. */
function serverOf(document: Record<string, unknown>, spec: string): string {
  const servers = document.servers as
    { url?: unknown; variables?: Record<string, { default?: unknown }> }[] | undefined;
  const server = servers?.find((s) => typeof s.url === "string");
  if (!server)
    throw new BrokerError(
      "unavailable",
      `the OpenAPI document ${spec} names no server: give base_url`,
      { spec },
    );
  // A server URL's {variables} take their defaults.
  const url = (server.url as string).replace(/\{([^}]+)\}/g, (_, name: string) =>
    String(server.variables?.[name]?.default ?? ""),
  );
  try {
    return new URL(url, /^https?:\/\//.test(spec) ? spec : undefined).href;
  } catch {
    throw new BrokerError(
      "unavailable",
      `the OpenAPI document ${spec} names its server as "${url}", which is no URL here: give base_url`,
      { spec },
    );
  }
}
