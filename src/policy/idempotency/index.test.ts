import { afterAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../../state/memory.js";
import {
  answering,
  context,
  sourceRequest,
  textResult,
  toolCall,
} from "../../../test/helpers/requests.js";
import { idempotency } from "./index.js";

const store = new MemoryStore();
afterAll(() => store.close());
const keyed = (key: string) => ({ ctx: context({ idempotencyKey: key }) });

describe("idempotency", () => {
  it("runs a keyed call once and answers a repeat with the stored result", async () => {
    const link = idempotency(store, 60_000);
    let runs = 0;
    const next = async () => textResult(`run ${++runs}`);
    const first = await link(toolCall({ a: 1 }, keyed("k1")), next);
    const again = await link(toolCall({ a: 1 }, keyed("k1")), next);
    expect(again).toEqual(first);
    expect(runs).toBe(1);
  });

  it("refuses the same key with another payload as a conflict", async () => {
    const link = idempotency(store, 60_000);
    await link(toolCall({ a: 1 }, keyed("k2")), answering(textResult("ok")));
    await expect(
      link(toolCall({ a: 2 }, keyed("k2")), answering(textResult("ok"))),
    ).rejects.toMatchObject({ kind: "idempotency_conflict" });
  });

  it("passes requests that are not tool calls untouched, key or not", async () => {
    const link = idempotency(store, 60_000);
    const next = answering({ contents: [] });
    for (let i = 0; i < 2; i++)
      await link(sourceRequest("resources/read", { uri: "x" }, keyed("k3")), next);
    expect(next.reached).toHaveLength(2);
  });
});
