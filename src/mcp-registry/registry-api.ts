import { parseJson } from "../contract/json-text.js";
import { HostAllowlist } from "../net/host-allowlist.js";
import { guardedRequest } from "../net/guarded-request.js";
import { ServerList, ServerResponse } from "./server-json.js";

/** The official registry; companies run their own (`--registry`, MCP_BROKER_REGISTRY_URL). */
export const OFFICIAL_REGISTRY = "https://registry.modelcontextprotocol.io";
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const TIMEOUT_MS = 20_000;

/**
 * A registry's read API, v0.1: servers whose name holds `text`, and one
 * server's version (`latest` by default). Answers are checked against the
 * registry's shapes; a server that is not there, or an answer that is not
 * one, is an error saying so.
 */
export class RegistryApi {
  constructor(readonly base: string = OFFICIAL_REGISTRY) {}

  async search(text: string, limit = 30): Promise<ServerResponse[]> {
    const url = new URL("v0.1/servers", `${this.base.replace(/\/+$/, "")}/`);
    url.searchParams.set("search", text);
    url.searchParams.set("version", "latest");
    url.searchParams.set("limit", String(limit));
    const parsed = ServerList.safeParse(await this.get(url));
    if (!parsed.success)
      throw new Error(`${this.base} answered a server list in no shape the broker knows`);
    return parsed.data.servers;
  }

  async server(name: string, version = "latest"): Promise<ServerResponse> {
    const url = new URL(
      `v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`,
      `${this.base.replace(/\/+$/, "")}/`,
    );
    const parsed = ServerResponse.safeParse(await this.get(url, `${name}@${version}`));
    if (!parsed.success)
      throw new Error(
        `${this.base} answered ${name}@${version} in no shape the broker knows: ${parsed.error.issues[0]?.message}`,
      );
    return parsed.data;
  }

  private async get(url: URL, what?: string): Promise<unknown> {
    const answer = await guardedRequest(url.href, {
      method: "GET",
      headers: { accept: "application/json" },
      // The registry the user named, and nowhere a redirect would take it.
      policy: HostAllowlist.ofUrls([url], "the registry's host"),
      maxBytes: MAX_ANSWER_BYTES,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (answer.status === 404 && what) throw new Error(`${this.base} has no server ${what}`);
    if (answer.status !== 200) throw new Error(`${this.base} answered HTTP ${answer.status}`);
    const value = parseJson(answer.body.toString("utf8"));
    if (value === undefined) throw new Error(`${this.base} answered something that is not JSON`);
    return value;
  }
}
