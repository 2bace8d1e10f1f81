import type { Server } from "@modelcontextprotocol/server";
import type { Principal } from "../../../contract/router.js";

/** Idle servers kept for one principal at most: as many as it usually has requests at once. */
const IDLE_PER_PRINCIPAL = 16;

/** Principals whose idle servers are kept, the least recently served dropped first. */
const PRINCIPALS_KEPT = 64;

interface Kept {
  readonly server: Server;
  readonly caller: { principal: Principal };
  /** The generation it was made in: one made before a change is not served again. */
  readonly generation: number;
}

/**
 * The servers of 2026-07-28 requests, each kept for the next request of the
 * same principal once its exchange is over, rather than built anew for every
 * request (a server and its ten handlers were a tenth of what such a request
 * allocated). A server is taken by one request at a time, serves it as a
 * fresh one would (the SDK seeds its client identity per request and resets
 * its protocol state when the exchange closes), and reads who calls from the
 * request that took it. It is not kept when its request was aborted (a
 * handler still running could otherwise speak into the next exchange), and
 * none made before `renew` (a reload, a new tree, a backend's new
 * capabilities) is served again.
 */
export class RequestServers {
  private readonly idle = new Map<string, Kept[]>();
  private generation = 0;

  constructor(private readonly create: (principal: () => Principal) => Server) {}

  /** A server for one request of `principal`; `signal` is the request's own. */
  take(principal: Principal, signal: AbortSignal | undefined): Server {
    const kept = this.reuse(principal) ?? this.make(principal);
    let aborted = false;
    const onAbort = () => (aborted = true);
    signal?.addEventListener("abort", onAbort, { once: true });
    kept.server.onclose = () => {
      signal?.removeEventListener("abort", onAbort);
      if (!aborted && kept.generation === this.generation) this.keep(kept);
    };
    return kept.server;
  }

  /** Servers made until now are not served again. */
  renew(): void {
    this.generation += 1;
    this.idle.clear();
  }

  private reuse(principal: Principal): Kept | undefined {
    const kept = this.idle.get(principal.id)?.pop();
    if (kept) kept.caller.principal = principal;
    return kept;
  }

  private make(principal: Principal): Kept {
    const caller = { principal };
    return {
      server: this.create(() => caller.principal),
      caller,
      generation: this.generation,
    };
  }

  private keep(kept: Kept): void {
    const id = kept.caller.principal.id;
    const servers = this.idle.get(id) ?? [];
    this.idle.delete(id);
    this.idle.set(id, servers);
    if (servers.length < IDLE_PER_PRINCIPAL) servers.push(kept);
    if (this.idle.size > PRINCIPALS_KEPT) this.idle.delete(this.idle.keys().next().value!);
  }
}
