import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { writeConfig } from "../helpers/broker.js";
import { startToolService, type ToolService } from "../helpers/tool-service.js";
import { healthy, rssMb, underAttack } from "../helpers/under-attack.js";

/**
 * What a registrant can send `/rpc`, sent as an attacker would, to a broker in
 * a process of its own whose registry is open to everyone (no auth, as the
 * demo runs), while `/healthz` is asked again and again.
 */
let broker: BrokerProcess;
let service: ToolService;
let nextId = 1;

async function rpc(method: string, params: unknown): Promise<{ result?: any; error?: any }> {
  const res = await fetch(`${broker.url}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
  });
  return (await res.json()) as { result?: any; error?: any };
}

const register = (tool: Record<string, unknown>) =>
  rpc("tools/register", { tool: { endpoint: service.url, ...tool } });

beforeAll(async () => {
  service = await startToolService("healthy");
  broker = await spawnBroker(writeConfig({ tree: [], registry: { allowed_hosts: ["127.0.0.1"] } }));
});
afterAll(async () => {
  await broker?.stop();
  await service?.kill();
});

describe("schemas a registrant chooses", () => {
  it("a pattern that backtracks for ever is checked in linear time: ^(a+)+$ against 34 a's and !", async () => {
    const registered = await register({
      name: "redos",
      functions: [
        {
          name: "web_search",
          parameters: {
            type: "object",
            properties: { query: { type: "string", pattern: "^(a+)+$" } },
          },
        },
      ],
    });
    expect(registered.result, JSON.stringify(registered)).toMatchObject({ status: "registered" });
    const watched = await underAttack(
      broker.child.pid!,
      () =>
        rpc("tools/call", {
          tool_name: "redos",
          function_name: "web_search",
          arguments: { query: `${"a".repeat(34)}!` },
        }),
      () => healthy(broker.url),
    );
    expect(watched.result.error).toMatchObject({ code: -32004 });
    expect(watched.result.error.data.details).toContain('must match pattern "^(a+)+$"');
    expect(watched.slowestProbeMs).toBeLessThan(1000);
  });

  it("a pattern that cannot be checked in linear time is refused at registration, saying why", async () => {
    const { error } = await register({
      name: "lookahead",
      functions: [
        {
          name: "web_search",
          parameters: {
            type: "object",
            properties: { query: { type: "string", pattern: "^(?=a)a+$" } },
          },
        },
      ],
    });
    expect(error.code).toBe(-32004);
    expect(error.data.details).toContain("cannot be checked in linear time");
  });

  it("refused registrations of large schemas leave no memory behind", async () => {
    const before = rssMb(broker.child.pid!);
    // Each a distinct schema of some 180 KB (over the bound: refused before it is compiled),
    // then of some 60 KB (compiled, then refused for a function defined twice).
    const huge = (i: number, chars: number) => ({
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: chars / 60 }, (_, j) => [
          `p${i}_${j}`,
          { type: "string", maxLength: j },
        ]),
      ),
    });
    for (let i = 0; i < 150; i++) {
      const { error } = await register({
        name: `big${i}`,
        functions: [{ name: "f", parameters: huge(i, 180_000) }],
      });
      expect(error?.data.details).toContain("larger than 65536 characters");
    }
    for (let i = 0; i < 150; i++) {
      const { error } = await register({
        name: `twice${i}`,
        functions: [
          { name: "f", parameters: huge(1000 + i, 60_000) },
          { name: "f", parameters: { type: "object" } },
        ],
      });
      expect(error?.data.details).toContain('"f" is defined twice');
    }
    expect(rssMb(broker.child.pid!) - before).toBeLessThan(250);
    await healthy(broker.url);
  }, 120_000);
});
