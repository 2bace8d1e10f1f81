import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveHttp, type RunningServer } from "../../src/app/serve.js";
import { capturingLogger, fixtureCommand, writeConfig } from "../helpers/broker.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const admin = token("admin", ["*:/**"]);
const reader = token("reader", ["tree:/**"]);
const { log, lines } = capturingLogger();
let running: RunningServer;
let url: string;

beforeAll(async () => {
  running = await serveHttp({
    host: "127.0.0.1",
    port: 0,
    configFile: writeConfig({
      auth: { tokens: configEntries(admin, reader) },
      tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
    }),
    log,
  });
  url = `http://127.0.0.1:${running.port}`;
});
afterAll(() => running?.close());

const tree = (headers: Record<string, string>) =>
  fetch(`${url}/meta_tree`, { method: "POST", headers, body: "{}" });

describe("refused credentials leave a trace", () => {
  it("says at start-up that auth is on and how many tokens there are", () => {
    expect(lines().find((l) => l.msg === "listening")).toMatchObject({ auth: "on", tokens: 2 });
  });

  it("logs one warn line per refusal with the remote address and reason, never the token", async () => {
    const before = lines().length;
    const refused = [
      await tree({}),
      await tree({ authorization: "Token abc" }),
      await tree({ authorization: "Bearer not-the-token-xyz" }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error.kind).toBe("unauthenticated");
    }
    expect(refused[2]!.headers.get("www-authenticate")).toBe(
      'Bearer realm="mcp-broker", error="invalid_token"',
    );
    const logged = lines()
      .slice(before)
      .filter((l) => l.msg === "credentials refused");
    expect(logged.map((l) => [l.level, l.reason, l.remote])).toEqual([
      [40, "missing", "127.0.0.1"],
      [40, "malformed", "127.0.0.1"],
      [40, "invalid", "127.0.0.1"],
    ]);
    expect(JSON.stringify(lines())).not.toContain("not-the-token-xyz");
    expect((await tree(bearer(reader))).status).toBe(200);
  });

  it("counts refusals by reason in /metrics", async () => {
    const text = await (await fetch(`${url}/metrics`, { headers: bearer(admin) })).text();
    expect(text).toContain('mcp_broker_auth_refused_total{reason="invalid"} 1');
    expect(text).toContain('mcp_broker_auth_refused_total{reason="missing"} 1');
  });

  it("shows /healthz details to an admin token only", async () => {
    const plain = (await (await fetch(`${url}/healthz`)).json()) as any;
    expect(plain.sources["/fx"]).toEqual({ up: true });
    expect((await fetch(`${url}/healthz`, { headers: bearer(reader) })).status).toBe(403);
    expect((await fetch(`${url}/healthz?details`)).status).toBe(401);
    const details = (await (
      await fetch(`${url}/healthz`, { headers: bearer(admin) })
    ).json()) as any;
    expect(details.sources["/fx"]).toEqual({
      state: "up",
      up: true,
      restarts: 0,
      attempts: 0,
      protocol_version: "2025-11-25",
    });
  });
});
