import type { Tool } from "@modelcontextprotocol/server";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { PinBook } from "../../src/pinning/pin-book.js";
import { MemoryStore } from "../../src/state/memory.js";
import type { Mount } from "../../src/tree/skeleton.js";

const mount: Mount = { id: "/d", name: "d", source: { backend: "stdio" } };
const first: Tool = { name: "get", description: "Gets.", inputSchema: { type: "object" } };
const second: Tool = {
  name: "get",
  description: "Gets otherwise.",
  inputSchema: { type: "object" },
};

describe("a tool a backend lists twice", () => {
  it("is the first one, at first sight and after: the second is not its definition changed", async () => {
    const pins = new PinBook(
      new MemoryStore(),
      "enforce",
      () => [],
      pino({ level: "silent" }),
      () => {},
    );
    const lists = new Map([[mount.id, [first, second]]]);
    for (let review = 0; review < 2; review++) {
      const kept = await pins.review([mount], lists);
      expect(pins.current().size).toBe(0);
      expect(kept.get(mount.id)).toEqual([first, second]);
    }
  });
});
