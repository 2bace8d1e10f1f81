import type { CallToolResult, ServerCapabilities, Tool } from "@modelcontextprotocol/server";
import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import type { CallContext, Router } from "../../contract/router.js";
import { HostAllowlist } from "../../net/host-allowlist.js";
import { guardedRequest, NotReached, RequestFailed } from "../../net/guarded-request.js";
import { buildRequest, type ApiRequest } from "./build-request.js";
import { ClientCredentialsToken } from "./client-credentials-token.js";
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
  private grant: ClientCredentialsToken | undefined;
  /** The API's host and the operator's additions: where its requests may go (nowhere before start). */
  private policy = new HostAllowlist([], "the API's host");

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
    this.policy = new HostAllowlist(
      [new URL(this.base).hostname.replace(/^\[|\]$/g, ""), ...(this.config.allowed_hosts ?? [])],
      `the API's host and allowed_hosts of ${this.name}`,
    );
    const auth = this.config.auth;
    this.grant =
      auth && "client_credentials" in auth
        ? new ClientCredentialsToken({
            ...auth.client_credentials,
            token_url: auth.client_credentials.token_url ?? tokenUrlOf(document, this.config.spec),
          })
        : undefined;
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
    const auth = this.config.auth;
    let request;
    try {
      request = buildRequest(found.operation, found.shape.places, args, this.base, {
        auth: auth && "client_credentials" in auth ? undefined : auth,
        headers: this.config.headers,
      });
    } catch (err) {
      throw new BrokerError("invalid_params", (err as Error).message);
    }
    try {
      let answer = await this.send(request, ctx.signal);
      // A token the API no longer takes (revoked, its keys rotated): one more try with a new one.
      if (answer.status === 401 && this.grant) {
        this.grant.forget();
        answer = await this.send(request, ctx.signal);
      }
      return callResult(answer);
    } catch (err) {
      if (ctx.signal.aborted || err instanceof BrokerError) throw err;
      if (err instanceof RequestFailed)
        throw new BrokerError(
          err instanceof NotReached ? "unavailable" : "execution_failed",
          `${found.operation.method} ${found.operation.path}: ${err.message}`,
        );
      throw err;
    }
  }

  private async send(request: ApiRequest, signal: AbortSignal) {
    const headers = this.grant
      ? { ...request.headers, authorization: `Bearer ${await this.grant.token(signal)}` }
      : request.headers;
    return guardedRequest(request.url.href, {
      method: request.method,
      headers,
      ...(request.body ? { body: request.body } : {}),
      policy: this.policy,
      maxBytes: this.config.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      signal,
    });
  }

  /** Nothing is held open between calls (the connections are the shared agents'). */
  async close(): Promise<void> {
    this.tools = new Map();
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

/** The token URL of the document's OAuth 2 client credentials flow, resolved against the document's URL. */
function tokenUrlOf(document: Record<string, unknown>, spec: string): string {
  const schemes = (document.components as { securitySchemes?: Record<string, unknown> } | undefined)
    ?.securitySchemes;
  for (const scheme of Object.values(schemes ?? {})) {
    const url = (scheme as { flows?: { clientCredentials?: { tokenUrl?: unknown } } }).flows
      ?.clientCredentials?.tokenUrl;
    if (typeof url === "string" && URL.canParse(url, /^https?:\/\//.test(spec) ? spec : undefined))
      return new URL(url, /^https?:\/\//.test(spec) ? spec : undefined).href;
  }
  throw new BrokerError(
    "unavailable",
    `the OpenAPI document ${spec} has no OAuth 2 client credentials flow: give auth.client_credentials.token_url`,
    { spec },
  );
}
