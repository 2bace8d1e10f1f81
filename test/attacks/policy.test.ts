import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { fixtureCommand, writeConfig } from "../helpers/broker.js";
import { rssMb } from "../helpers/under-attack.js";

/**
 * What one caller can make the policy chain hold, sent as an attacker would to
 * a broker in a process of its own (no auth, as the demo runs).
 */
let broker: BrokerProcess;

beforeAll(async () => {
  broker = await spawnBroker(
    writeConfig({
      tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
    }),
  );
});
afterAll(() => broker?.stop());

const bigCall = (key: string) =>
  fetch(`${broker.url}/meta_call`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify({ path: "/fx/big", args: { chars: 1_000_000, items: 0 } }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

describe("idempotency keys", () => {
  it("100 keyed calls of 1 MB each: the token keeps 64 MiB of them, the rest say they were not kept", async () => {
    const before = rssMb(broker.child.pid!);
    const answers = [];
    for (let i = 0; i < 100; i++) answers.push(await bigCall(`flood-${i}`));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const unkept = answers.filter((a) => a.body.idempotency?.kept === false);
    expect(unkept.length).toBeGreaterThan(30);
    expect(unkept[0]!.body.idempotency.why).toContain("max_bytes_per_token");
    expect(rssMb(broker.child.pid!) - before).toBeLessThan(250);
    // A repeat of an unkept key is refused, not run again.
    const last = await bigCall("flood-99");
    expect(last.status).toBe(409);
    expect(last.body.error.message).toContain("ran, and its result was not kept");
    // One that was kept is answered from the store.
    expect((await bigCall("flood-0")).status).toBe(200);
  }, 120_000);
});
