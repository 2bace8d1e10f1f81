import type { ServerRequest } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { SoleClient } from "../../src/contract/sole-client.js";

const listRoots = { method: "roots/list", params: {} } as ServerRequest;

describe("the sole client", () => {
  it("holds a request made before the client's handshake, and asks the client once it is over", async () => {
    const sole = new SoleClient();
    const asked: string[] = [];
    const answer = sole.request(listRoots, new AbortController().signal);
    sole.attach(async (request) => {
      asked.push(request.method);
      return { roots: [{ uri: "file:///work" }] };
    });
    await expect(answer).resolves.toEqual({ roots: [{ uri: "file:///work" }] });
    expect(asked).toEqual(["roots/list"]);
  });

  it("refuses a request whose backend gave up before any client could be asked, saying why", async () => {
    const sole = new SoleClient();
    const gaveUp = new AbortController();
    const answer = sole.request(listRoots, gaveUp.signal);
    gaveUp.abort();
    await expect(answer).rejects.toThrow("roots/list cannot reach the client");
    // One given up before it came waits for nothing either.
    await expect(sole.request(listRoots, gaveUp.signal)).rejects.toThrow(
      "roots/list cannot reach the client",
    );
  });

  it("refuses at once, those waiting too, once the client turns out to speak 2026-07-28", async () => {
    const sole = new SoleClient();
    const waiting = sole.request(listRoots, new AbortController().signal);
    sole.speaksModern();
    const why =
      "roots/list cannot reach the client: it speaks 2026-07-28, whose clients are asked for input only during a call";
    await expect(waiting).rejects.toThrow(why);
    await expect(sole.request(listRoots, new AbortController().signal)).rejects.toThrow(why);
  });

  it("lets eight requests wait for the client at once, refuses the ninth, and takes one again once one is answered", async () => {
    const sole = new SoleClient();
    const waiting = Array.from({ length: 8 }, () =>
      sole.request(listRoots, new AbortController().signal),
    );
    await expect(sole.request(listRoots, new AbortController().signal)).rejects.toThrow(
      "8 requests outside calls are already waiting for the client",
    );
    sole.attach(async () => ({ roots: [] }));
    await Promise.all(waiting);
    await expect(sole.request(listRoots, new AbortController().signal)).resolves.toEqual({
      roots: [],
    });
  });

  it("tells every listener that the client's roots changed, until it stops listening", () => {
    const sole = new SoleClient();
    let heard = 0;
    const stop = sole.onRootsChanged(() => (heard += 1));
    sole.rootsChanged();
    stop();
    sole.rootsChanged();
    expect(heard).toBe(1);
  });
});
