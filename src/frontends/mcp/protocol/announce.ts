import type { Server } from "@modelcontextprotocol/server";
import type { ChangeKind } from "../../../contract/router.js";

/**
 * Tells a connection's client that a list changed: a 2025-era one once it
 * has initialized (a notification before `initialize` breaks the protocol),
 * a 2026-07-28 one on the `subscriptions/listen` streams it holds (the SDK
 * routes it there). Never fails the caller: a client that went away simply
 * misses it.
 */
export function announce(server: Server, what: ChangeKind): void {
  if (server.getNegotiatedProtocolVersion() === undefined) return;
  const sent =
    what === "tools"
      ? server.sendToolListChanged()
      : what === "resources"
        ? server.sendResourceListChanged()
        : server.sendPromptListChanged();
  sent.catch(() => undefined);
}
