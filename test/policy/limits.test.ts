import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";

let broker: TestBroker;
let auditFile: string;

beforeAll(async () => {
  auditFile = `${process.env.TMPDIR ?? "/tmp"}/mcp-broker-audit-${Date.now()}.jsonl`;
  broker = await startBroker({
    expose: "both",
    limits: { max_result_items: 100, max_result_bytes: 100_000, timeout_s: 30 },
    redact: ["api_key"],
    audit: { file: auditFile },
    tree: [
      {
        path: "/fx",
        limits: { max_result_items: 10, max_request_bytes: 300 },
        source: {
          backend: "stdio",
          command: fixtureCommand(),
          tool_overrides: {
            big: { limits: { max_result_bytes: 2000 } },
            sleep: { limits: { timeout_s: 0.2 } },
          },
        },
      },
    ],
  });
});
afterAll(() => broker?.close());

describe("limits", () => {
  it("show in meta_desc, the nearest winning", async () => {
    const count = (await broker.post("/meta_desc", { path: "/fx/count" })).body;
    expect(count.limits).toEqual({
      max_result_items: 10,
      max_request_bytes: 300,
      max_result_bytes: 100_000,
      max_args_depth: 64,
    });
    expect(count.timeout_s).toBe(30);
    const big = (await broker.post("/meta_desc", { path: "/fx/big" })).body;
    expect(big.limits.max_result_bytes).toBe(2000);
    expect((await broker.post("/meta_desc", { path: "/fx/sleep" })).body.timeout_s).toBe(0.2);
  });

  it("a limit argument over max_result_items is invalid params naming the maximum", async () => {
    const res = await broker.post("/meta_call", { path: "/fx/count", args: { limit: 11 } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/argument 'limit' is 11, over the maximum of 10/);
    expect(
      (await broker.post("/meta_call", { path: "/fx/count", args: { limit: 10 } })).status,
    ).toBe(200);
  });

  it("a result over max_result_bytes is 413, in REST and as a JSON-RPC error with the status in MCP", async () => {
    const res = await broker.post("/meta_call", {
      path: "/fx/big",
      args: { chars: 5000, items: 0 },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/over max_result_bytes of 2000/);
    const client = await connectHttp(broker.url);
    await expect(
      client.callTool({ name: "fx__big", arguments: { chars: 5000, items: 0 } }),
    ).rejects.toMatchObject({
      data: { kind: "too_large", http_status: 413, max_result_bytes: 2000 },
    });
    await client.close();
  });

  it("arguments over max_request_bytes are 413", async () => {
    const res = await broker.post("/meta_call", {
      path: "/fx/count",
      args: { note: "x".repeat(400) },
    });
    expect(res.status).toBe(413);
    expect(res.body.error.details).toMatchObject({ max_request_bytes: 300 });
  });

  it("timeout_s from a tool's limits cancels the call", async () => {
    const res = await broker.post("/meta_call", { path: "/fx/sleep", args: { ms: 3000 } });
    expect(res.status).toBe(504);
    expect(res.body.error.message).toMatch(/timeout of 0.2 s/);
  });
});

describe("redaction", () => {
  it("removes sensitive keys at any depth, in text-embedded JSON and structured content, whatever their case", async () => {
    const res = await broker.post("/meta_call", { path: "/fx/secrets", args: {} });
    const [json, plain] = res.body.output.content;
    expect(JSON.parse(json.text)).toEqual({ user: "ann", profile: { nested: [{ ok: true }] } });
    expect(plain.text).toBe("plain text with password: not JSON, kept");
    expect(res.body.output.structuredContent).toEqual({ user: "ann" });
  });

  it("over MCP too", async () => {
    const client = await connectHttp(broker.url);
    const result = await client.callTool({ name: "fx__secrets", arguments: {} });
    expect(textOf(result)).not.toMatch(/p1|t1|s1|r1|k1/);
    await client.close();
  });
});

describe("audit", () => {
  it("writes one JSON line per call: token, path, outcome, duration, argument digest, never the arguments", async () => {
    await broker.post("/meta_call", { path: "/fx/count", args: { note: "secret-note" } });
    await broker.post("/meta_call", { path: "/fx/count", args: { limit: 99 } });
    // The audit file is written after the answer: wait for the second call's line.
    await expect
      .poll(() => JSON.parse(readFileSync(auditFile, "utf8").trim().split("\n").at(-1)!))
      .toMatchObject({ path: "/fx/count", outcome: "invalid_params" });
    const text = readFileSync(auditFile, "utf8");
    expect(text).not.toContain("secret-note");
    const records = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const last = records.at(-1);
    expect(last).toMatchObject({
      token: "anonymous",
      path: "/fx/count",
      outcome: "invalid_params",
      result_bytes: 0,
    });
    expect(last.args_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(records.at(-2)).toMatchObject({ outcome: "ok", path: "/fx/count" });
    expect(records.at(-2).result_bytes).toBeGreaterThan(0);
    expect(typeof records.at(-2).duration_ms).toBe("number");
  });
});
