import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";

/** Events kept per session for clients that reconnect with `Last-Event-ID`. */
const KEPT_EVENTS = 1000;

/**
 * The SSE events of one session, so that a client whose stream broke can
 * reconnect with `Last-Event-ID` and miss nothing. Bounded: a session keeps its
 * last 1000 events; a client that fell further behind must start over.
 */
export class SessionEventStore implements EventStore {
  private readonly events: { id: string; streamId: string; message: JSONRPCMessage }[] = [];
  private next = 0;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${(this.next++).toString(36).padStart(8, "0")}`;
    this.events.push({ id, streamId, message });
    if (this.events.length > KEPT_EVENTS) this.events.shift();
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.find((e) => e.id === eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    if (at === -1) throw new Error(`event ${lastEventId} is no longer kept; start a new request`);
    const { streamId } = this.events[at]!;
    for (const event of this.events.slice(at + 1)) {
      if (event.streamId === streamId) await send(event.id, event.message);
    }
    return streamId;
  }
}
