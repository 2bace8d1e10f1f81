import { createParser } from "eventsource-parser";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

/** The console over HTTP, without a browser: its files, its API and what it adds to /meta_call. */
const admin = token("admin", ["*:/**"]);
const alice = token("alice", ["*:/fx/**"]);
let broker: TestBroker;

beforeAll(async () => {
  broker = await startBroker({
    registry: { predefined: false },
    redact: ["title"],
    auth: { tokens: configEntries(admin, alice) },
    tree: [
      {
        path: "/fx",
        source: {
          backend: "stdio",
          command: fixtureCommand(),
          tool_filter: ["pid", "big"],
          tool_overrides: { big: { max_output_chars: 300 } },
        },
      },
    ],
  });
});
afterAll(() => broker?.close());

const get = (path: string, who?: { bearer: string }) =>
  fetch(`${broker.url}${path}`, { headers: who ? bearer(who) : {} });

describe("the console's files", () => {
  it("serves the page at / to anyone, under a strict Content-Security-Policy", async () => {
    const res = await get("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("strict-transport-security")).toBeNull();
    expect(await res.text()).toContain('<script type="module" src="/console/app.js">');
    for (const file of [
      "app.js",
      "console.css",
      "pages/tools.js",
      "vendor/eventsource-parser.js",
    ]) {
      const asset = await get(`/console/${file}`);
      expect(asset.status, file).toBe(200);
      expect(asset.headers.get("cache-control")).toBe("no-cache");
    }
  });

  it("serves nothing outside its folder, whatever the path (property)", async () => {
    const segment = fc.oneof(
      fc.constantFrom("..", "%2e%2e", "..%2f", "%2F", ".", "~", "api", "package.json", "src", ""),
      fc.stringMatching(/^[A-Za-z0-9._%-]{1,12}$/),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 5 }), async (segments) => {
        const res = await fetch(`${broker.url}/console/${segments.join("/")}`);
        const body = await res.text();
        expect(res.status).toBeLessThan(500);
        expect(body).not.toContain('"name": "mcp-broker"');
        expect(body).not.toContain("import type");
      }),
      { numRuns: fuzzRuns(150), seed: 21 },
    );
  });
});

describe("the console's API", () => {
  it("says who a token is and what it may see; refuses no token", async () => {
    expect((await get("/console/api/me")).status).toBe(401);
    expect(await (await get("/console/api/me", admin)).json()).toEqual({
      token: "admin",
      auth: true,
      can: { health_details: true, traffic: true, run: true, pins: true },
    });
    expect(await (await get("/console/api/me", alice)).json()).toMatchObject({
      token: "alice",
      // An admin of /fx/** reviews the tool definitions under /fx.
      can: { health_details: false, traffic: false, run: false, pins: true },
    });
  });

  it("shows the live traffic to admins only, saying which scope is missing", async () => {
    const refused = await get("/console/api/traffic", alice);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.message).toContain("needs an admin scope");
    expect((await get("/console/api/audit", alice)).status).toBe(403);
    await broker.post("/meta_call", { path: "/fx/pid", args: {} }, bearer(admin));
    await new Promise((r) => setImmediate(r));
    const traffic = (await (await get("/console/api/traffic", admin)).json()) as any;
    expect(traffic.step_s).toBe(5);
    expect(traffic.sessions).toEqual({ http: 0, sse: 0 });
    expect(traffic.sources["/fx"].at(-1).calls_per_s).toBeGreaterThan(0);
  });

  it("streams each audit record as it is written", async () => {
    const controller = new AbortController();
    const res = await fetch(`${broker.url}/console/api/audit`, {
      headers: bearer(admin),
      signal: controller.signal,
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const records: any[] = [];
    const parser = createParser({
      onEvent: (e) => {
        if (e.event === "audit") records.push(JSON.parse(e.data));
      },
    });
    const reading = (async () => {
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(value);
      }
    })().catch(() => undefined);
    await broker.post("/meta_call", { path: "/fx/pid", args: {} }, bearer(alice));
    await expect.poll(() => records.length, { timeout: 5000 }).toBeGreaterThan(0);
    expect(records[0]).toMatchObject({
      method: "tools/call",
      path: "/fx/pid",
      token: "alice",
      outcome: "ok",
      source: "/fx",
    });
    expect(records[0].args_sha256).toMatch(/^[0-9a-f]{64}$/);
    controller.abort();
    await reading;
  });
});

describe("shutting down", () => {
  it("ends open audit streams, so the server closes at once", async () => {
    const own = await startBroker({ registry: { predefined: false }, tree: [] });
    const res = await fetch(`${own.url}/console/api/audit`);
    const reader = res.body!.getReader();
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(3000);
    // The stream ended (or broke) with the server rather than hanging on.
    for (;;) {
      const read = await reader.read().catch(() => ({ done: true }));
      if (read.done) break;
    }
  });
});

describe("/meta_call for the playground", () => {
  it("says when the output was cut or redacted, and how long the call took", async () => {
    const res = await fetch(`${broker.url}/meta_call`, {
      method: "POST",
      headers: { ...bearer(admin), "content-type": "application/json" },
      body: JSON.stringify({ path: "/fx/big", args: { chars: 400, items: 2 } }),
    });
    expect(res.headers.get("server-timing")).toMatch(/^call;dur=\d+(\.\d)?$/);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ is_error: false, truncated: true, redacted: true });
    expect(JSON.stringify(body.output)).not.toContain('\\"title\\"');
    const plain = await broker.post("/meta_call", { path: "/fx/pid", args: {} }, bearer(admin));
    expect(plain.body).not.toHaveProperty("truncated");
    expect(plain.body).not.toHaveProperty("redacted");
  });
});
