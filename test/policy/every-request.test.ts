import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, writeConfig, type TestBroker } from "../helpers/broker.js";
import { cliArgv } from "../helpers/cli.js";
import { connectHttp, connectStdio } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

/**
 * The policy chain governs resources, prompts and completion as it governs
 * tool calls: redaction, rate limits, timeouts, audit and scopes, over the
 * aggregated /mcp, a source's own /mcp/<name>, and stdio.
 */
const SECRETS = fileURLToPath(new URL("../fixtures/secrets-server.mjs", import.meta.url));
const admin = token("admin", ["*:/**"]);
const limited = token("limited", ["*:/**"]);
const lister = token("lister", ["tree:/**", "describe:/**"]);

function config(auditFile: string, rateLimitedToken: string) {
  return {
    redact: ["api_key"],
    audit: { file: auditFile },
    rate_limits: [{ token: rateLimitedToken, path: "/sec", per_minute: 1, burst: 2 }],
    tree: [
      {
        path: "/sec",
        limits: { timeout_s: 0.5 },
        source: { backend: "stdio", command: [process.execPath, SECRETS], name: "sec" },
      },
    ],
  };
}

/** Where a request of the source is found: by its own names, or qualified in /mcp. */
interface Names {
  secret: string;
  slow: string;
  prompt: string;
}
const OWN: Names = { secret: "test://secret", slow: "test://slow", prompt: "credentials" };
const QUALIFIED: Names = {
  secret: "mcp-broker://sec/test%3A%2F%2Fsecret",
  slow: "mcp-broker://sec/test%3A%2F%2Fslow",
  prompt: "sec__credentials",
};

const auditOf = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

/** What every frontend must show; `limitedClient` is one the rate limit applies to. */
function governs(
  frontends: () => { label: string; client: Client; names: Names }[],
  auditFile: () => string,
) {
  it("redacts a resource's contents, a prompt's messages and completion values", async () => {
    for (const { label, client, names } of frontends()) {
      const read = await client.readResource({ uri: names.secret });
      const text = (read.contents[0] as { text: string }).text;
      expect(JSON.parse(text), label).toEqual({ user: "ann", nested: {} });
      const prompt = await client.getPrompt({ name: names.prompt, arguments: { name: "x" } });
      const message = prompt.messages[0]!.content as { text: string };
      expect(JSON.parse(message.text), label).toEqual({ name: "x" });
      const completion = await client.complete({
        ref: { type: "ref/prompt", name: names.prompt },
        argument: { name: "name", value: "" },
      });
      expect(completion.completion.values, label).toEqual(['{"name":"ok"}', "plain"]);
    }
  });

  it("times out a slow resource at the node's timeout_s", async () => {
    for (const { label, client, names } of frontends()) {
      const started = Date.now();
      await expect(client.readResource({ uri: names.slow }), label).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining("did not finish within its timeout of 0.5 s"),
        data: { kind: "timeout", timeout_s: 0.5 },
      });
      expect(Date.now() - started).toBeLessThan(3000);
    }
  });

  it("audits every kind of request, with its method and the source's node", async () => {
    const records = auditOf(auditFile());
    const methods = new Set(records.map((r) => r.method));
    for (const method of ["resources/read", "prompts/get", "completion/complete"])
      expect(methods).toContain(method);
    expect(
      records.filter((r) => r.method === "resources/read" && r.outcome === "timeout"),
    ).not.toEqual([]);
    for (const r of records.filter((r) => r.method !== "tools/call")) {
      expect(r.path).toBe("/sec");
      expect(r.args_sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });
}

describe("over HTTP: /mcp and /mcp/<name>", () => {
  let broker: TestBroker;
  let own: Client;
  let aggregated: Client;
  const auditFile = join(mkdtempSync(join(tmpdir(), "mcp-broker-audit-")), "audit.jsonl");

  beforeAll(async () => {
    broker = await startBroker({
      ...config(auditFile, "limited"),
      auth: { tokens: configEntries(admin, limited, lister) },
    });
    own = await connectHttp(broker.url, bearer(admin), { path: "/mcp/sec" });
    aggregated = await connectHttp(broker.url, bearer(admin));
  });
  afterAll(async () => {
    await own?.close();
    await aggregated?.close();
    await broker?.close();
  });

  governs(
    () => [
      { label: "/mcp/sec", client: own, names: OWN },
      { label: "/mcp", client: aggregated, names: QUALIFIED },
    ],
    () => auditFile,
  );

  it("rate limits reads, prompts and completions at the source's node", async () => {
    for (const [path, names] of [
      ["/mcp/sec", OWN],
      ["/mcp", QUALIFIED],
    ] as const) {
      const client = await connectHttp(broker.url, bearer(limited), { path });
      const outcomes = await Promise.allSettled([
        client.readResource({ uri: names.secret }),
        client.getPrompt({ name: names.prompt, arguments: { name: "x" } }),
        client.complete({
          ref: { type: "ref/prompt", name: names.prompt },
          argument: { name: "name", value: "" },
        }),
      ]);
      const refused = outcomes.filter((o) => o.status === "rejected");
      // The bucket holds two for both endpoints together: the first two pass, then none.
      expect(refused.length).toBeGreaterThanOrEqual(1);
      for (const o of refused)
        expect((o as PromiseRejectedResult).reason).toMatchObject({
          code: -32600,
          data: { kind: "rate_limited", http_status: 429 },
        });
      await client.close();
    }
    // The audit file is appended to asynchronously: its last lines may follow the answers.
    await expect
      .poll(
        () =>
          auditOf(auditFile).filter((r) => r.token === "limited" && r.outcome === "rate_limited")
            .length,
        { timeout: 5000 },
      )
      .toBeGreaterThanOrEqual(4);
  });

  it("a token that may list a source's resources may not read them without a call scope", async () => {
    const client = await connectHttp(broker.url, bearer(lister), { path: "/mcp/sec" });
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain("test://secret");
    await expect(client.readResource({ uri: "test://secret" })).rejects.toMatchObject({
      code: -32600,
      message: expect.stringContaining(
        'token "lister" may not read the resources of /sec: no call scope matches it',
      ),
      data: { kind: "forbidden", http_status: 403 },
    });
    await client.close();
  });
});

describe("over stdio: the tree, and one source as itself", () => {
  let own: Client;
  let aggregated: Client;
  const dir = mkdtempSync(join(tmpdir(), "mcp-broker-audit-"));
  const auditFile = join(dir, "audit.jsonl");

  beforeAll(async () => {
    const file = writeConfig(config(auditFile, "nobody"), dir);
    own = await connectStdio(cliArgv("stdio", file, "--server", "sec", "--log-level", "silent"));
    aggregated = await connectStdio(cliArgv("stdio", file, "--log-level", "silent"));
  });
  afterAll(async () => {
    await own?.close();
    await aggregated?.close();
  });

  governs(
    () => [
      { label: "stdio --server sec", client: own, names: OWN },
      { label: "stdio", client: aggregated, names: QUALIFIED },
    ],
    () => auditFile,
  );

  it("rate limits the stdio caller too", async () => {
    const limitedDir = mkdtempSync(join(tmpdir(), "mcp-broker-audit-"));
    const limitedAudit = join(limitedDir, "audit.jsonl");
    const file = writeConfig(config(limitedAudit, "stdio"), limitedDir);
    const client = await connectStdio(
      cliArgv("stdio", file, "--server", "sec", "--log-level", "silent"),
    );
    const reads = await Promise.allSettled(
      [1, 2, 3].map(() => client.readResource({ uri: OWN.secret })),
    );
    await client.close();
    expect(reads.filter((r) => r.status === "rejected")).toHaveLength(1);
    expect(auditOf(limitedAudit).filter((r) => r.outcome === "rate_limited")).toHaveLength(1);
  });
});
