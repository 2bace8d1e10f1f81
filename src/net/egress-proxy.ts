import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../contract/log.js";
import { guardedLookup } from "./address-policy.js";
import { HostAllowlist } from "./host-allowlist.js";

/** The name of the proxy's socket in its folder. */
export const EGRESS_SOCKET = "egress.sock";

/**
 * The one way out of a sandbox whose `network` is a list: an HTTP CONNECT
 * proxy on a Unix socket in a folder of its own, which the sandbox has bound
 * in (it has no network of its own, not even the host's loopback). A tunnel
 * is opened only to a host the list allows (a name or glob as written; an
 * address or network in CIDR notation, checked on the address actually
 * connected to, so a name cannot resolve its way around it); any other is
 * refused with 403 and logged with the source's name. Plain-HTTP proxy
 * requests are refused: clients tunnel (Node's fetch with
 * NODE_USE_ENV_PROXY does, as curl and Python's requests do for HTTPS).
 */
export class EgressProxy {
  private readonly tunnels = new Set<Socket>();
  /** The folder to bind into the sandbox; the socket is EGRESS_SOCKET in it. */
  readonly folder: string;
  /** Resolves once the proxy listens: the program is held until then. */
  readonly ready: Promise<void>;
  private readonly server: Server;

  constructor(source: string, hosts: readonly string[], log: Logger) {
    const allow = new HostAllowlist(hosts, `the sandbox.network of ${source}`);
    this.folder = mkdtempSync(join(tmpdir(), "mcp-broker-egress-"));
    this.server = createServer((_req, res) => {
      res.writeHead(405, { "content-type": "text/plain" });
      res.end("this proxy only tunnels (CONNECT host:port)\n");
    });
    this.server.on(
      "connect",
      (req: IncomingMessage, client: Socket, head: Buffer) =>
        void this.tunnel(req, client, head, allow, (target, why) =>
          log.warn({ source, target, why }, "sandbox refused a connection"),
        ),
    );
    this.ready = new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(join(this.folder, EGRESS_SOCKET), () => resolve());
    });
    // Awaited by the program's start; a start that never came leaves no unhandled rejection.
    this.ready.catch(() => undefined);
  }

  async close(): Promise<void> {
    for (const socket of this.tunnels) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.folder, { recursive: true, force: true });
  }

  private async tunnel(
    req: IncomingMessage,
    client: Socket,
    head: Buffer,
    allow: HostAllowlist,
    refused: (target: string, why: string) => void,
  ): Promise<void> {
    client.on("error", () => client.destroy());
    const target = req.url ?? "";
    const at = target.lastIndexOf(":");
    const host = target.slice(0, at).replace(/^\[(.*)\]$/, "$1");
    const port = Number(target.slice(at + 1));
    const deny = (why: string) => {
      refused(target, why);
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${why}\n`);
    };
    if (at <= 0 || !Number.isInteger(port) || port < 1 || port > 65535)
      return deny(`${target} is not host:port`);
    const problem = await allow.problemWith(
      new URL(`http://${host.includes(":") ? `[${host}]` : host}`),
    );
    if (problem) return deny(problem);
    const upstream = connect({ host, port, lookup: guardedLookup(allow) });
    this.tunnels.add(upstream).add(client);
    const forget = () => {
      this.tunnels.delete(upstream);
      this.tunnels.delete(client);
    };
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).on("close", forget);
      client.pipe(upstream);
    });
    upstream.once("error", (err: NodeJS.ErrnoException) => {
      forget();
      if (err.code === "EHOSTNOTALLOWED") return deny(err.message);
      client.end(`HTTP/1.1 502 Bad Gateway\r\n\r\n${err.code ?? "unreachable"}\n`);
    });
    client.once("close", () => upstream.destroy());
  }
}
