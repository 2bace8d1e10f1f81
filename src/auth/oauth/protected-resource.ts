import type { OAuthConfig, ScopeAction } from "../../config/schema.js";
import { scopesGranting, type ScopeMap } from "./token-scopes.js";

/** Where RFC 9728 puts a protected resource's metadata: this, then the resource's own path. */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The MCP endpoints are resources of their own (`/mcp`, `/mcp/<name>`); the rest is the broker's. */
const MCP_ENDPOINT = /^\/mcp(\/[^/]+)?$/;

/**
 * The broker as an OAuth 2.1 protected resource: its metadata document
 * (RFC 9728) and the `WWW-Authenticate` challenges that point clients to it
 * (MCP authorization: 401 with `resource_metadata`, 403 `insufficient_scope`
 * with the scope to ask for).
 */
export class ProtectedResource {
  private readonly scopeMap: ScopeMap;

  constructor(private readonly settings: OAuthConfig) {
    this.scopeMap = settings.scope_map ?? {};
  }

  /** The authorization server that issues its tokens. */
  get issuer(): string {
    return this.settings.issuer;
  }

  /** The resource a request addresses: an MCP endpoint's path, or "" for the broker. */
  static pathOf(requestPath: string): string {
    return MCP_ENDPOINT.test(requestPath) ? requestPath : "";
  }

  /** The metadata of the resource at `path`, for a request that came to `origin`. */
  metadata(origin: string, path: string): Record<string, unknown> {
    const scopes = Object.keys(this.scopeMap);
    return {
      resource: `${this.base(origin)}${path}`,
      authorization_servers: [this.settings.issuer],
      bearer_methods_supported: ["header"],
      ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
      resource_name: "mcp-broker",
    };
  }

  /** A 401's challenge: where the metadata is, and what was wrong with the token given. */
  challenge(origin: string, requestPath: string, error?: "invalid_request" | "invalid_token") {
    return `Bearer resource_metadata="${this.metadataUrl(origin, requestPath)}"${error ? `, error="${error}"` : ""}`;
  }

  /** A 403's challenge: the token scopes that would allow `action` on `target`. */
  stepUp(origin: string, requestPath: string, action: ScopeAction, target: string): string {
    const scope = scopesGranting(
      action,
      target,
      this.scopeMap,
      this.settings.literal_scopes === true,
    ).join(" ");
    // No scope the operator mapped grants it: nothing to ask the authorization server for.
    const asked = scope === "" ? "" : `, scope="${scope.replace(/["\\]/g, "")}"`;
    return `Bearer error="insufficient_scope"${asked}, resource_metadata="${this.metadataUrl(origin, requestPath)}"`;
  }

  private metadataUrl(origin: string, requestPath: string): string {
    return `${this.base(origin)}${RESOURCE_METADATA_PATH}${ProtectedResource.pathOf(requestPath)}`;
  }

  private base(origin: string): string {
    return (this.settings.resource ?? origin).replace(/\/$/, "");
  }
}
