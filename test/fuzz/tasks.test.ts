import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { postMcp } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

/**
 * Arbitrary ids, queries, bodies and headers at the task endpoints, REST and
 * MCP. The invariant: a 2xx or a 4xx that names the problem (a JSON-RPC error
 * other than -32603 on MCP); never a 5xx, and the broker still serves.
 */
const alice = token("alice", ["call:/**", "tree:/**"]);
const bob = token("bob", ["approve:/**", "call:/**"]);
let broker: TestBroker;
const known: string[] = [];
beforeAll(async () => {
  broker = await startBroker({
    auth: { tokens: configEntries(alice, bob) },
    approvals: { rules: [{ path: "/fx/count" }], wait_s: 0 },
    tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
  });
  for (let i = 0; i < 3; i++) {
    const res = await broker.post("/meta_call", { path: "/fx/count", args: { i } }, bearer(alice));
    known.push(res.body.task.id);
  }
});
afterAll(() => broker?.close());

const text = fc.string({ unit: "binary", maxLength: 60 });
const id = fc.oneof(
  fc.constantFrom(...["x", "../tasks", "%2e%2e", "a/approve", "🙂", ""]),
  fc.constantFrom(0, 1, 2).map((i) => known[i]!),
  text,
);
const who = fc.constantFrom(alice, bob);

describe("the REST task endpoints", () => {
  it("answer any id, query and body with a 2xx or a 4xx that names the problem", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "DELETE", "approve", "deny", "list"),
        id,
        fc.oneof(
          text,
          fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        ),
        who,
        async (action, taskId, body, caller) => {
          const target =
            action === "list"
              ? `/tasks?status=${encodeURIComponent(taskId)}`
              : `/tasks/${encodeURIComponent(taskId)}${action === "approve" || action === "deny" ? `/${action}` : ""}`;
          const method =
            action === "approve" || action === "deny" ? "POST" : action === "list" ? "GET" : action;
          const res = await fetch(broker.url + target, {
            method,
            headers: bearer(caller),
            body: method === "POST" ? body : undefined,
          });
          expect(res.status, `${method} ${target} ${body}`).toBeLessThan(500);
          if (res.status >= 400) {
            const answer = (await res.json()) as { error: { kind: string; message: string } };
            expect(answer.error.message.length).toBeGreaterThan(10);
          } else await res.body?.cancel();
        },
      ),
      { seed: 38, numRuns: fuzzRuns(300) },
    );
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
  });
});

describe("the pin endpoints", () => {
  it("answer any body with a 2xx or a 4xx that names the problem", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          text,
          fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
          fc
            .record({ path: fc.oneof(text, fc.constantFrom("/fx/count", "/", "/fx/../x")) })
            .map((v) => JSON.stringify(v)),
        ),
        who,
        async (body, caller) => {
          const res = await fetch(`${broker.url}/pins/approve`, {
            method: "POST",
            headers: bearer(caller),
            body,
          });
          expect(res.status, body).toBeLessThan(500);
          expect(res.status, body).toBeGreaterThanOrEqual(400);
          const answer = (await res.json()) as { error: { message: string } };
          expect(answer.error.message.length).toBeGreaterThan(10);
        },
      ),
      { seed: 39, numRuns: fuzzRuns(200) },
    );
    expect((await fetch(`${broker.url}/pins`, { headers: bearer(bob) })).status).toBe(200);
  });
});

describe("MCP's tasks/* methods", () => {
  const envelope = (extensions: boolean) => ({
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": extensions
      ? { extensions: { "io.modelcontextprotocol/tasks": {} } }
      : {},
    "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1" },
  });

  it("answer any params with a result or an error that names the problem", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("tasks/get", "tasks/cancel", "tasks/update", "tasks/result", "tasks/list"),
        fc.oneof(
          id.map((taskId) => ({ taskId })),
          fc.dictionary(text, fc.jsonValue({ maxDepth: 2 })),
        ),
        fc.boolean(),
        async (method, params, extensions) => {
          const name = typeof params.taskId === "string" ? params.taskId : "";
          const res = await postMcp(
            `${broker.url}/mcp`,
            { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: envelope(extensions) } },
            {
              ...bearer(alice),
              "mcp-protocol-version": "2026-07-28",
              "mcp-method": method,
              ...(/^[\x21-\x7e]*$/.test(name) && name !== "" ? { "mcp-name": name } : {}),
            },
          );
          expect(res.status).toBeLessThan(500);
          const answer = (await res.json()) as { error?: { code: number; message: string } };
          if (answer.error) {
            expect(answer.error.code).not.toBe(-32603);
            expect(answer.error.message.length).toBeGreaterThan(5);
          }
        },
      ),
      { seed: 38, numRuns: fuzzRuns(200) },
    );
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
  });
});
