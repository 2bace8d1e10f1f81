import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { writeConfig } from "../helpers/broker.js";
import { startToolService, type ToolService } from "../helpers/tool-service.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";
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

describe("answers a service chooses", () => {
  it("data nested 100,000 levels deep is refused in words, not a 500", async () => {
    const registered = await register({
      name: "abyss",
      functions: [{ name: "deep", parameters: { type: "object" } }],
    });
    expect(registered.result).toMatchObject({ status: "registered" });
    const res = await fetch(`${broker.url}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { tool_name: "abyss", function_name: "deep", arguments: {} },
      }),
    });
    expect(res.status).not.toBe(500);
    const { error } = (await res.json()) as { error: any };
    expect(error.code).toBe(-32006);
    expect(error.data.details).toContain("JSON nested more than 512 levels deep");
  });
});

describe("names", () => {
  const owner = token("owner", ["register:/registry/**", "call:/registry/**"]);
  const other = token("other", ["register:/registry/**", "call:/registry/**"]);
  const admin = token("admin", ["*:/**"]);
  let guarded: BrokerProcess;
  const rpcAs = async (who: { bearer: string }, method: string, params: unknown) => {
    const res = await fetch(`${guarded.url}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(who) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return { status: res.status, body: (await res.json()) as { result?: any; error?: any } };
  };
  const echoAt = (endpoint: string) => ({
    name: "echo",
    endpoint,
    functions: [{ name: "echo", parameters: { type: "object" } }],
  });

  beforeAll(async () => {
    guarded = await spawnBroker(
      writeConfig({
        tree: [],
        registry: { allowed_hosts: ["127.0.0.1"] },
        auth: { tokens: configEntries(owner, other, admin) },
      }),
    );
  });
  afterAll(() => guarded?.stop());

  it("a registered name belongs to its registrant: another token cannot take it over or remove it", async () => {
    expect(
      (await rpcAs(owner, "tools/register", { tool: echoAt(service.url) })).body.result,
    ).toMatchObject({ tool_id: "echo_v1" });
    const takeover = await rpcAs(other, "tools/register", {
      tool: echoAt("http://127.0.0.1:9/steal"),
    });
    expect(takeover.status).toBe(403);
    expect(takeover.body.error.data.details).toContain("registered by another token");
    expect((await rpcAs(other, "tools/unregister", { tool_name: "echo" })).status).toBe(403);
    // The owner's next call still goes to its own service, with its arguments.
    const calls = (await service.stats()).calls;
    const called = await rpcAs(owner, "tools/call", {
      tool_name: "echo",
      function_name: "echo",
      arguments: { secret: "mine" },
    });
    expect(called.body.result.data).toEqual({ secret: "mine" });
    expect((await service.stats()).calls).toBe(calls + 1);
    // Its owner changes it; an admin may remove it.
    expect(
      (await rpcAs(owner, "tools/register", { tool: { ...echoAt(service.url), version: "2" } }))
        .body.result,
    ).toMatchObject({ tool_id: "echo_v2" });
    expect(
      (await rpcAs(admin, "tools/unregister", { tool_name: "echo" })).body.result,
    ).toMatchObject({
      status: "unregistered",
    });
  });

  it("a name differing only in case from a predefined or registered one is refused", async () => {
    for (const name of ["Calculator", "CALCULATOR", "Time_Tool"]) {
      const { body } = await rpcAs(owner, "tools/register", {
        tool: { ...echoAt(service.url), name },
      });
      expect(body.error?.data.details, name).toContain("differs only in case from");
    }
  });
});
