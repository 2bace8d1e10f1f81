import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, INITIALIZE, postMcp, textOf } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

/** One token's many sessions, against another token's one (sessions.max 20). */
const admin = token("admin", ["*:/**"]);
const attacker = token("attacker", ["call:/fx/sleep"]);
let broker: TestBroker;

beforeAll(async () => {
  broker = await startBroker({
    expose: "flat",
    registry: { predefined: false },
    sessions: { max: 20 },
    auth: { tokens: configEntries(admin, attacker) },
    tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
  });
});
afterAll(() => broker?.close());

const headers = (who: { bearer: string }, session?: string) => ({
  ...bearer(who),
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...(session === undefined ? {} : { "mcp-session-id": session }),
});

/** A raw initialize: the session id, or the HTTP status that refused it. */
async function initialize(who: {
  bearer: string;
}): Promise<{ status: number; session: string | null }> {
  const res = await postMcp(`${broker.url}/mcp`, INITIALIZE, bearer(who));
  await res.body?.cancel();
  return { status: res.status, session: res.headers.get("mcp-session-id") };
}

describe("one token's sessions against everyone else's", () => {
  it("50 sessions of one token do not evict another token's session", async () => {
    const client = await connectHttp(broker.url, bearer(admin));
    for (let i = 0; i < 50; i++) expect((await initialize(attacker)).status).toBe(200);
    expect(
      Number(textOf(await client.callTool({ name: "fx__pid", arguments: {} }))),
    ).toBeGreaterThan(0);
    await client.close();
  });

  it("one token's slow calls in all its sessions refuse its next session, not another token's", async () => {
    // Until every session it may hold has a call in flight, a new one replaces an idle one.
    let refused: number | undefined;
    for (let i = 0; i < 40 && refused === undefined; i++) {
      const opened = await initialize(attacker);
      if (opened.status !== 200) {
        refused = opened.status;
        break;
      }
      // A call that takes a while, in flight in every one of its sessions.
      void fetch(`${broker.url}/mcp`, {
        method: "POST",
        headers: headers(attacker, opened.session!),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "fx__sleep", arguments: { ms: 5000 } },
        }),
      }).catch(() => undefined);
    }
    expect(refused).toBe(429);
    expect((await initialize(admin)).status).toBe(200);
  });
});
