import type { ServerNotification } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { context, textResult, toolCall } from "../../../test/helpers/requests.js";
import type { Request } from "../link.js";
import { relayBudget } from "./index.js";
import { fuzzRuns } from "../../../test/helpers/fuzz.js";

const log = (i: number, data = "x"): ServerNotification => ({
  method: "notifications/message",
  params: { level: "info", data: `${i} ${data}` },
});

/** Runs `backend` as the source of a call through the link; what reached the caller, what was said. */
async function relay(
  budget: Parameters<typeof relayBudget>[0],
  backend: (ctx: Request["ctx"]) => Promise<void>,
) {
  const delivered: ServerNotification[] = [];
  const asked: string[] = [];
  const dropped: string[] = [];
  const link = relayBudget(budget, (_path, what) => dropped.push(what));
  const call = toolCall(
    {},
    {
      ctx: context({
        notify: (n) => delivered.push(n),
        progress: () => undefined,
        request: async (r) => {
          asked.push(r.method);
          return {};
        },
      }),
    },
  );
  await link(call, async (request) => {
    await backend(request.ctx);
    return textResult("done");
  });
  return { delivered, asked, dropped };
}

describe("relayBudget", () => {
  it("relays notifications up to the budget, drops the rest, and says so once", async () => {
    const { delivered, dropped } = await relay(
      { notifications: 10, notificationBytes: 1e6, requests: 1, requestsAtOnce: 1 },
      async (ctx) => {
        for (let i = 0; i < 1000; i++) ctx.notify!(log(i));
      },
    );
    expect(delivered).toHaveLength(10);
    expect(dropped).toEqual(["notifications past 10 or 1000000 bytes were dropped"]);
  });

  it("counts their size: a few large ones spend the budget as many small ones would", async () => {
    const { delivered } = await relay(
      { notifications: 1000, notificationBytes: 10_000, requests: 1, requestsAtOnce: 1 },
      async (ctx) => {
        for (let i = 0; i < 100; i++) ctx.notify!(log(i, "y".repeat(3000)));
      },
    );
    expect(delivered).toHaveLength(3);
  });

  it("refuses the backend's requests past the budget, in all and at once", async () => {
    const { asked, dropped } = await relay(
      { notifications: 10, notificationBytes: 1e6, requests: 5, requestsAtOnce: 2 },
      async (ctx) => {
        const sampling = { method: "sampling/createMessage", params: {} } as never;
        // Three at once: the third is refused while two are under way.
        const atOnce = await Promise.allSettled([1, 2, 3].map(() => ctx.request!(sampling)));
        expect(atOnce.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
        const later = [];
        for (let i = 0; i < 10; i++)
          later.push(
            await ctx.request!(sampling).then(
              () => "ok",
              (e: Error) => e.message,
            ),
          );
        expect(later.filter((r) => r === "ok")).toHaveLength(3);
        expect(later.at(-1)).toContain("asked its caller more than 5 times in one request");
      },
    );
    expect(asked).toHaveLength(5);
    expect(dropped).toHaveLength(1);
  });

  it("never relays past its budget, whatever a backend sends in whatever order (fast-check)", async () => {
    const budget = { notifications: 20, notificationBytes: 2000, requests: 6, requestsAtOnce: 3 };
    const sent = fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant("log" as const), size: fc.nat(500) }),
        fc.record({ kind: fc.constant("progress" as const), size: fc.nat(50) }),
        fc.record({ kind: fc.constant("request" as const), size: fc.constant(0) }),
      ),
      { maxLength: 200 },
    );
    await fc.assert(
      fc.asyncProperty(sent, async (messages) => {
        const { delivered, asked } = await relay(budget, async (ctx) => {
          const pending: Promise<unknown>[] = [];
          messages.forEach((m, i) => {
            if (m.kind === "log") ctx.notify!(log(i, "x".repeat(m.size)));
            else if (m.kind === "progress")
              ctx.progress!({ progress: i, message: "y".repeat(m.size) });
            else
              pending.push(ctx.request!({ method: "roots/list" } as never).catch(() => undefined));
          });
          await Promise.all(pending);
        });
        expect(delivered.length).toBeLessThanOrEqual(budget.notifications);
        const bytes = delivered.reduce((sum, n) => sum + JSON.stringify(n).length, 0);
        expect(bytes).toBeLessThanOrEqual(budget.notificationBytes);
        expect(asked.length).toBeLessThanOrEqual(budget.requests);
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});
