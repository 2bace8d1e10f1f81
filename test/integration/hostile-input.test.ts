import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, ReadResourceResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";

const auditFile = join(mkdtempSync(join(tmpdir(), "mcp-broker-hostile-")), "audit.jsonl");
const deep = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels));
let broker: TestBroker;
let flat: Client;
let own: Client;

beforeAll(async () => {
  broker = await startBroker({
    expose: "both",
    audit: { file: auditFile },
    tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
  });
  flat = await connectHttp(broker.url);
  own = await connectHttp(broker.url, {}, { path: "/mcp/fx" });
});
afterAll(async () => {
  await flat?.close();
  await own?.close();
  await broker?.close();
});

/** The audit records written so far: the audit is written after the answer, whole lines only. */
const audited = () =>
  readFileSync(auditFile, "utf8")
    .split("\n")
    .filter((l) => l.endsWith("}"))
    .map((l) => JSON.parse(l));

describe("arguments of any depth", () => {
  it("over REST: 400 naming the limit, audited, and the broker keeps answering", async () => {
    // Written out: JSON.stringify itself cannot nest this deep.
    const levels = 100_000;
    const body = `{"path":"/fx/count","args":{"note":${"[".repeat(levels)}${"]".repeat(levels)}}}`;
    const res = await broker.post("/meta_call", body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      kind: "invalid_params",
      details: { max_args_depth: 64 },
    });
    await expect
      .poll(() => audited().at(-1))
      .toMatchObject({ path: "/fx/count", outcome: "invalid_params" });
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
  });

  it("over MCP: a tool result the model can read, audited", async () => {
    for (const [client, name] of [
      [flat, "fx__count"],
      [own, "count"],
    ] as const) {
      const result = await client.callTool({ name, arguments: { note: deep(1000) } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("nested more than 64 levels deep (max_args_depth)");
    }
    await expect
      .poll(() => audited().filter((r) => r.outcome === "invalid_params").length)
      .toBeGreaterThanOrEqual(3);
  });
});

describe("malformed MCP requests", () => {
  it("a tools/call without a name, or with arguments as an array, is -32602 naming the field", async () => {
    for (const client of [flat, own]) {
      await expect(
        client.request(
          { method: "tools/call", params: { arguments: {} } } as never,
          CallToolResultSchema,
        ),
      ).rejects.toMatchObject({
        code: -32602,
        // The SDK checks tools/call itself and lists the problems as JSON, each with its path.
        message: expect.stringMatching(/Invalid tools\/call request: [\s\S]*"params",\s*"name"/),
      });
      await expect(
        client.request(
          { method: "tools/call", params: { name: "count", arguments: [1, 2] } } as never,
          CallToolResultSchema,
        ),
      ).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(
          /"params",\s*"arguments"[\s\S]*expected record, received array/,
        ),
      });
    }
  });

  it("a resources/read without a uri is -32602 too, on every endpoint", async () => {
    await expect(
      own.request({ method: "resources/read", params: {} } as never, ReadResourceResultSchema),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("$.params.uri") });
  });
});

describe("results no one bounded", () => {
  it("a result over 16 MiB is refused by default, naming max_result_bytes, and audited", async () => {
    const res = await broker.post("/meta_call", {
      path: "/fx/big",
      args: { chars: 17 * 1024 * 1024, items: 0 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(413);
    expect(res.body.error).toMatchObject({
      kind: "too_large",
      details: { max_result_bytes: 16 * 1024 * 1024 },
    });
    expect((await broker.post("/meta_desc", { path: "/fx/big" })).body.limits).toMatchObject({
      max_result_bytes: 16 * 1024 * 1024,
    });
    await expect
      .poll(() => audited().at(-1))
      .toMatchObject({ path: "/fx/big", outcome: "too_large" });
  });
});
