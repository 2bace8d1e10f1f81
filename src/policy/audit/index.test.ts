import { describe, expect, it } from "vitest";
import { BrokerError } from "../../contract/errors.js";
import { answering, sourceRequest, textResult, toolCall } from "../../../test/helpers/requests.js";
import { audit, auditRecord, type AuditRecord } from "./index.js";

function recorder() {
  const records: [AuditRecord, string][] = [];
  return {
    records,
    link: audit((entry, source) => records.push([auditRecord(entry), source])),
  };
}

describe("audit", () => {
  it("records a tool call's outcome, size and argument digest, never the arguments", async () => {
    const { records, link } = recorder();
    await link(toolCall({ secret: "hunter2" }), answering(textResult("ok")));
    const [record, source] = records[0]!;
    expect(source).toBe("/src");
    expect(record).toMatchObject({
      token: "anyone",
      method: "tools/call",
      path: "/src/tool",
      outcome: "ok",
      result_bytes: JSON.stringify(textResult("ok")).length,
    });
    expect(record.args_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(record)).not.toContain("hunter2");
  });

  it("records a tool error as tool_error, and a refusal by its kind", async () => {
    const { records, link } = recorder();
    await link(toolCall(), answering({ content: [], isError: true }));
    await expect(
      link(toolCall(), async () => {
        throw new BrokerError("forbidden", "no");
      }),
    ).rejects.toThrow("no");
    expect(records.map(([r]) => r.outcome)).toEqual(["tool_error", "forbidden"]);
  });

  it("records requests of every kind with their method", async () => {
    const { records, link } = recorder();
    await link(sourceRequest("resources/read", { uri: "test://a" }), answering({ contents: [] }));
    await link(sourceRequest("prompts/get", { name: "p" }), answering({ messages: [] }));
    expect(records.map(([r]) => [r.method, r.path, r.outcome])).toEqual([
      ["resources/read", "/src", "ok"],
      ["prompts/get", "/src", "ok"],
    ]);
  });

  it("records arguments nested far too deep, without overflowing the stack", async () => {
    const { records, link } = recorder();
    const deep = JSON.parse("[".repeat(100_000) + "]".repeat(100_000));
    await expect(
      link(toolCall({ deep }), async () => {
        throw new BrokerError("invalid_params", "too deep");
      }),
    ).rejects.toThrow("too deep");
    expect(records[0]![0].outcome).toBe("invalid_params");
  });
});
