import { Server } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/contract/router.js";
import { RequestServers } from "../../src/frontends/mcp/transport/request-servers.js";

const principal = (id: string, scopes: string[] = ["*:/**"]): Principal =>
  ({ id, scopes }) as unknown as Principal;

/** A pool of real SDK servers, each remembering who it was told calls. */
function pool() {
  const made: { server: Server; caller: () => Principal }[] = [];
  const servers = new RequestServers((caller) => {
    const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
    made.push({ server, caller });
    return server;
  });
  const callerOf = (server: Server) => made.find((m) => m.server === server)!.caller();
  return { servers, made, callerOf };
}

/** What the SDK does when a request's exchange is over. */
const exchangeEnds = (server: Server) => server.onclose?.();

describe("servers of 2026-07-28 requests, kept between requests", () => {
  it("serves the next request of the same principal with the server of the last", () => {
    const { servers, made } = pool();
    const first = servers.take(principal("a"), undefined);
    exchangeEnds(first);
    expect(servers.take(principal("a"), undefined)).toBe(first);
    expect(made).toHaveLength(1);
  });

  it("never gives one principal's server to another, nor one server to two requests at once", () => {
    const { servers } = pool();
    const a = servers.take(principal("a"), undefined);
    const aToo = servers.take(principal("a"), undefined);
    expect(aToo).not.toBe(a);
    exchangeEnds(a);
    expect(servers.take(principal("b"), undefined)).not.toBe(a);
  });

  it("reads who calls from the request that took it: a reload's narrower scopes count at once", () => {
    const { servers, callerOf } = pool();
    const server = servers.take(principal("a", ["*:/**"]), undefined);
    exchangeEnds(server);
    const narrower = principal("a", ["call:/x/**"]);
    expect(servers.take(narrower, undefined)).toBe(server);
    expect(callerOf(server)).toBe(narrower);
  });

  it("does not keep a server whose request was aborted (a handler may still be running)", () => {
    const { servers } = pool();
    const abort = new AbortController();
    const server = servers.take(principal("a"), abort.signal);
    abort.abort();
    exchangeEnds(server);
    expect(servers.take(principal("a"), undefined)).not.toBe(server);
  });

  it("serves none made before a renewal, idle or busy then", () => {
    const { servers } = pool();
    const idle = servers.take(principal("a"), undefined);
    const busy = servers.take(principal("a"), undefined);
    exchangeEnds(idle);
    servers.renew();
    exchangeEnds(busy);
    const next = servers.take(principal("a"), undefined);
    expect([idle, busy]).not.toContain(next);
  });

  it("keeps a bounded number: 16 idle servers for a principal, 64 principals", () => {
    const { servers, made } = pool();
    const taken = Array.from({ length: 20 }, () => servers.take(principal("a"), undefined));
    taken.forEach(exchangeEnds);
    const again = Array.from({ length: 20 }, () => servers.take(principal("a"), undefined));
    expect(made).toHaveLength(24);
    expect(new Set(again.filter((s) => taken.includes(s))).size).toBe(16);
    for (let i = 0; i < 70; i++) exchangeEnds(servers.take(principal(`p${i}`), undefined));
    // The first principals' servers were dropped to keep 64; the last ones' kept.
    const before = made.length;
    servers.take(principal("p0"), undefined);
    servers.take(principal("p69"), undefined);
    expect(made.length).toBe(before + 1);
  });
});
