import {
  createMcpHandler,
  isLegacyRequest,
  type AuthInfo,
  type McpHttpHandler,
  type Server,
  type ServerNotifier,
} from "@modelcontextprotocol/server";
import type { Logger } from "../../../contract/log.js";
import type { Principal } from "../../../contract/router.js";
import type { McpHttpEndpoint } from "./http-sessions.js";
import { claimsModern } from "./claims-modern.js";
import { RequestServers } from "./request-servers.js";

/**
 * One MCP URL for clients of every revision: requests of 2026-07-28 (they
 * carry the per-request `_meta` envelope) go to an SDK 2.x handler that
 * builds a server per request; everything else (an `initialize`, a request
 * in a 2025-era session, the session's `GET` stream and `DELETE`) goes to
 * the 2025-era endpoint. The body is read once and handed to whichever
 * serves it.
 */
export class BothRevisions implements McpHttpEndpoint {
  private readonly modern: McpHttpHandler;
  private readonly offChanges: () => void;

  constructor(
    private readonly legacy: McpHttpEndpoint,
    createServer: (principal: () => Principal) => Server,
    private readonly maxRequestBodySize: number,
    log: Logger,
    /**
     * Subscribes the endpoint's `subscriptions/listen` streams to what changes,
     * and has its servers made anew after a change; returns the cleanup.
     */
    watch: (notify: ServerNotifier, renew: () => void) => () => void,
  ) {
    const servers = new RequestServers(createServer);
    this.modern = createMcpHandler(
      (ctx) => servers.take(principalOf(ctx.authInfo), ctx.requestInfo?.signal),
      {
        legacy: "reject",
        maxRequestBodySize,
        onerror: (err) => log.debug({ err }, "MCP 2026-07-28 request refused"),
      },
    );
    this.offChanges = watch(this.modern.notify, () => servers.renew());
  }

  /** Serves one request; `text` is its body, where the caller read it already. */
  async handle(request: Request, principal: Principal, text?: string): Promise<Response> {
    if (request.method !== "POST") return this.legacy.handle(request, principal);
    text ??= await request.text();
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      // Not JSON: the 2025-era transport answers it with its parse error.
      return this.legacy.handle(replayed(request, text), principal);
    }
    // A claim goes to the modern handler, which answers even a malformed one, without
    // the SDK's classifier running twice.
    if (
      request.headers.has("mcp-session-id") ||
      (!claimsModern(body) &&
        (await isLegacyRequest(request, body, { maxRequestBodySize: this.maxRequestBodySize })))
    )
      return this.legacy.handle(request, principal, body);
    return this.modern.fetch(request, { parsedBody: body, authInfo: authInfoOf(principal) });
  }

  async closeAll(): Promise<void> {
    this.offChanges();
    await Promise.all([this.legacy.closeAll(), this.modern.close()]);
  }
}

/**
 * The principal rides the SDK's AuthInfo to the per-request server factory,
 * itself (its compiled scopes are cached by identity); no token does.
 */
function authInfoOf(principal: Principal): AuthInfo {
  return { token: "", clientId: principal.id, scopes: [...principal.scopes], extra: { principal } };
}

function principalOf(auth: AuthInfo | undefined): Principal {
  const principal = auth?.extra?.principal as Principal | undefined;
  if (!principal)
    throw new Error("a 2026-07-28 request reached the MCP handler without a principal");
  return principal;
}

/** The same request with its body, which was read already. */
function replayed(request: Request, body: string): Request {
  return new Request(request.url, { method: request.method, headers: request.headers, body });
}
