import { afterAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../../state/memory.js";
import { answering, sourceRequest, textResult, toolCall } from "../../../test/helpers/requests.js";
import { rateLimit } from "./index.js";

const store = new MemoryStore();
afterAll(() => store.close());

describe("rateLimit", () => {
  it("lets burst requests through, then refuses with the seconds to wait", async () => {
    const link = rateLimit(store, [{ token: "*", path: "/src/**", perMinute: 6, burst: 2 }]);
    const next = answering(textResult("ok"));
    await link(toolCall(), next);
    await link(sourceRequest("resources/read", { uri: "x" }), next);
    await expect(link(toolCall(), next)).rejects.toMatchObject({
      kind: "rate_limited",
      details: { retry_after_s: 10, per_minute: 6, burst: 2, path: "/src/**" },
    });
    expect(next.reached).toHaveLength(2);
  });

  it("counts only the requests its token and path glob match", async () => {
    const link = rateLimit(store, [{ token: "someone", path: "/**", perMinute: 1, burst: 1 }]);
    const next = answering(textResult("ok"));
    for (let i = 0; i < 5; i++) await link(toolCall(), next);
    expect(next.reached).toHaveLength(5);
  });
});
