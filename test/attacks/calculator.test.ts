import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { writeConfig } from "../helpers/broker.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";
import { healthy, underAttack } from "../helpers/under-attack.js";

/**
 * Expressions that ended or stalled the whole broker, sent as an attacker
 * would, to a broker in a process of its own (the predefined tools on, no
 * auth: what a newcomer runs), while a second caller keeps asking.
 */
let broker: BrokerProcess;
let nextId = 1;

async function calculate(
  expression: string,
  extra: { timeout?: number } = {},
  headers: Record<string, string> = {},
): Promise<{ result?: any; error?: any }> {
  const res = await fetch(`${broker.url}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/call",
      params: {
        tool_name: "calculator",
        function_name: "calculate",
        arguments: { expression },
        ...extra,
      },
    }),
  });
  return (await res.json()) as { result?: any; error?: any };
}

const four = async (headers: Record<string, string> = {}) => {
  const answer = await calculate("2 + 2", {}, headers);
  if (answer.result?.data?.result !== 4) throw new Error(`2 + 2 gave ${JSON.stringify(answer)}`);
};

/** About four seconds of work in a few bytes of memory. */
const SLOW = Array(8).fill("isPrime(9007199254740881)").join(" + ");

describe("without auth, as the demo runs", () => {
  beforeAll(async () => {
    broker = await spawnBroker(writeConfig({ tree: [] }));
    await four();
  });
  afterAll(() => broker?.stop());

  it("an expression that needs more memory than the calculator has ends its process, never the broker", async () => {
    const watched = await underAttack(
      broker.child.pid!,
      () =>
        Promise.all(
          ["zeros(1e4, 1e4)", "ones(3000, 3000)", "sum(range(1, 1e9))"].map((e) => calculate(e)),
        ),
      () => healthy(broker.url),
    );
    for (const answer of watched.result) {
      expect(answer.error, JSON.stringify(answer)).toMatchObject({ code: -32004 });
      expect(answer.error.data.details).toMatch(/64 MB of memory|took longer than 2 s/);
    }
    expect(broker.child.exitCode).toBeNull();
    expect(watched.slowestProbeMs).toBeLessThan(1000);
    await four();
  });

  it("a matrix result is refused over 10,000 elements, before it is formatted", async () => {
    const answer = await calculate("ones(200, 200)");
    expect(answer.error.data.details).toBe(
      "the result is a matrix of 200 × 200 = 40000 elements; the calculator returns at most 10000",
    );
    expect((await calculate("size(ones(200, 200))")).result.data.result).toBe("[200, 200]");
  });

  it("a call that timed out stops its work: a second caller does not wait for it", async () => {
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => calculate(SLOW, { timeout: 0.05 })),
    );
    for (const answer of answers) expect(answer.error).toMatchObject({ code: -32005 });
    const after = performance.now();
    await four();
    // Work left running would hold both processes for seconds (SLOW is some four of them).
    expect(performance.now() - after).toBeLessThan(2000);
    expect(after - started).toBeLessThan(3000);
  });

  it("no expression changes what another sees: config() is refused", async () => {
    const answer = await calculate("config({relTol: 0.2})");
    expect(answer.error.data.details).toContain("settings cannot be changed");
    expect((await calculate("floor(2.9)")).result.data.result).toBe(2);
    expect((await calculate("equal(1, 1.1)")).result.data.result).toBe(false);
  });
});

describe("with tokens", () => {
  const attacker = token("attacker", ["call:/**"]);
  const victim = token("victim", ["call:/**"]);

  beforeAll(async () => {
    broker = await spawnBroker(
      writeConfig({ tree: [], auth: { tokens: configEntries(attacker, victim) } }),
    );
    await four(bearer(victim));
  });
  afterAll(() => broker?.stop());

  it("callers take turns: one caller's slow expressions do not hold another's 2 + 2", async () => {
    const watched = await underAttack(
      broker.child.pid!,
      () => Promise.all(Array.from({ length: 5 }, () => calculate(SLOW, {}, bearer(attacker)))),
      () => four(bearer(victim)),
    );
    for (const answer of watched.result) {
      expect(answer.error.data.details).toContain("took longer than 2 s");
    }
    expect(watched.probes).toBeGreaterThan(10);
    // A probe behind an attacker's expression would wait out its 2 s timeout.
    expect(watched.slowestProbeMs).toBeLessThan(1900);
  }, 60_000);

  it("a caller with too many expressions waiting is refused, the others are not", async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => calculate(SLOW, { timeout: 0.5 }, bearer(attacker))),
    );
    const refused = answers.filter((a) => a.error?.code === -32007);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(refused[0]!.error.data.details).toContain("jobs of this caller waiting (at most 16)");
    await four(bearer(victim));
  });
});
