import type { Server } from "@modelcontextprotocol/server";
import type { ChangeKind } from "../../contract/router.js";

/**
 * Tells a session's client that a list changed, once the client has
 * initialized (a notification before `initialize` breaks the protocol), and
 * never fails the caller: a client that went away simply misses it.
 */
export function announce(server: Server, what: ChangeKind): void {
  if (server.getClientVersion() === undefined) return;
  const sent =
    what === "tools"
      ? server.sendToolListChanged()
      : what === "resources"
        ? server.sendResourceListChanged()
        : server.sendPromptListChanged();
  sent.catch(() => undefined);
}
