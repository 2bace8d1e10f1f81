import { afterAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../state/memory.js";
import { answering, context, textResult, toolCall } from "../../test/helpers/requests.js";
import type { AuditEntry } from "./audit/index.js";
import { compose, policyLinks, type PolicySettings } from "./chain.js";

const store = new MemoryStore();
afterAll(() => store.close());

function chain(overrides: Partial<PolicySettings> = {}) {
  const audited: AuditEntry[] = [];
  const settings: PolicySettings = {
    store,
    rateLimits: [],
    idempotencyTtlMs: 60_000,
    redactKeys: [],
    audit: (record) => audited.push(record),
    ...overrides,
  };
  return { links: policyLinks(settings), audited };
}

const schema = {
  type: "object" as const,
  properties: { n: { type: "integer" } },
  required: ["n"],
};

describe("the policy chain", () => {
  it("runs its links in this order", () => {
    expect(chain().links.map((link) => link.name)).toEqual([
      "traceLink",
      "auditLink",
      "authorizeLink",
      "admissionLink",
      "argsDepthLink",
      "validateArgumentsLink",
      "limitsLink",
      "timeoutLink",
      "relayBudgetLink",
      "redactLink",
    ]);
  });

  it("audits the refusals of every link inside it", async () => {
    const { links, audited } = chain();
    const run = compose(links, answering(textResult("ok")));
    const stranger = context({ principal: { id: "x", scopes: ["tree:/**"] } });
    await expect(run(toolCall({ n: 1 }, { ctx: stranger, inputSchema: schema }))).rejects.toThrow();
    await expect(run(toolCall({ n: "one" }, { inputSchema: schema }))).rejects.toThrow();
    expect(audited.map((r) => r.outcome)).toEqual(["forbidden", "invalid_params"]);
  });

  it("authorizes before it counts: a forbidden call takes no rate-limit token", async () => {
    const { links } = chain({
      rateLimits: [{ token: "*", path: "/**", perMinute: 1, burst: 1 }],
    });
    const run = compose(links, answering(textResult("ok")));
    const stranger = context({ principal: { id: "y", scopes: ["tree:/**"] } });
    await expect(run(toolCall({}, { ctx: stranger }))).rejects.toMatchObject({ kind: "forbidden" });
    const allowed = context({ principal: { id: "y", scopes: ["call:/**"] } });
    await expect(run(toolCall({}, { ctx: allowed }))).resolves.toBeDefined();
  });

  it("counts before it validates: a call with bad arguments takes its token", async () => {
    const { links } = chain({
      rateLimits: [{ token: "*", path: "/**", perMinute: 1, burst: 1 }],
    });
    const run = compose(links, answering(textResult("ok")));
    const caller = context({ principal: { id: "z", scopes: ["call:/**"] } });
    await expect(
      run(toolCall({ n: "one" }, { ctx: caller, inputSchema: schema })),
    ).rejects.toMatchObject({ kind: "invalid_params" });
    await expect(
      run(toolCall({ n: 1 }, { ctx: caller, inputSchema: schema })),
    ).rejects.toMatchObject({ kind: "rate_limited" });
  });

  it("checks the depth of the arguments before the schema walks them", async () => {
    const run = compose(chain().links, answering(textResult("ok")));
    const deep = JSON.parse("[".repeat(100_000) + "]".repeat(100_000));
    await expect(run(toolCall({ n: deep }, { inputSchema: schema }))).rejects.toMatchObject({
      message: expect.stringContaining("nested more than 64 levels"),
    });
  });

  it("redacts before the result is measured and before it is stored for a repeat", async () => {
    const { links } = chain();
    const secretResult = textResult(JSON.stringify({ ok: 1, password: "p".repeat(500) }));
    const run = compose(links, answering(secretResult));
    const bounded = {
      limits: { max_args_depth: 64, max_result_bytes: 200 },
      ctx: context({ idempotencyKey: "redacted-first" }),
    };
    const result = await run(toolCall({}, bounded));
    expect(JSON.stringify(result)).not.toContain("password");
    const stored = await store.get("idem:anyone:redacted-first");
    expect(stored).toBeDefined();
    expect(stored).not.toContain("password");
  });
});
