import { describe, expect, it } from "vitest";
import { SessionEventStore } from "../../src/frontends/mcp/transport/event-store.js";

const message = (id: number) => ({ jsonrpc: "2.0" as const, id, result: {} });

describe("SessionEventStore", () => {
  it("replays the events of the same stream after the last one seen, in order", async () => {
    const store = new SessionEventStore();
    const a1 = await store.storeEvent("a", message(1));
    await store.storeEvent("b", message(2));
    await store.storeEvent("a", message(3));
    await store.storeEvent("a", message(4));
    const sent: unknown[] = [];
    const stream = await store.replayEventsAfter(a1, { send: async (_id, m) => void sent.push(m) });
    expect(stream).toBe("a");
    expect(sent).toEqual([message(3), message(4)]);
    expect(await store.getStreamIdForEventId(a1)).toBe("a");
  });

  it("keeps the last 1000 events; an older id is refused with a clear error", async () => {
    const store = new SessionEventStore();
    const first = await store.storeEvent("a", message(0));
    for (let i = 1; i <= 1000; i++) await store.storeEvent("a", message(i));
    await expect(store.replayEventsAfter(first, { send: async () => undefined })).rejects.toThrow(
      /no longer kept/,
    );
    await expect(
      store.replayEventsAfter("nonsense", { send: async () => undefined }),
    ).rejects.toThrow(/no longer kept/);
  });
});
