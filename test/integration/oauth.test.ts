import { createHmac, createPublicKey } from "node:crypto";
import fc from "fast-check";
import { exportSPKI } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { INITIALIZE, postMcp } from "../helpers/mcp-client.js";
import { TestIssuer } from "../helpers/authorization-server.js";
import { capturingLogger, fixtureCommand, writeConfig } from "../helpers/broker.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";
import { serveHttp, type RunningServer } from "../../src/app/serve.js";

/**
 * The broker as an OAuth 2.1 resource server, against an authorization
 * server on loopback whose keys the test makes: what it accepts, what it
 * refuses and how it says so (MCP authorization, RFC 9728, RFC 6750).
 */
const AUDIENCE = "https://broker.test/mcp";
const RESOURCE = "https://broker.test";
const ci = token("ci", ["*:/**"]);
const { log, lines } = capturingLogger();
let issuer: TestIssuer;
let running: RunningServer;
let url: string;

beforeAll(async () => {
  issuer = await TestIssuer.start();
  await issuer.addKey("k1");
  await issuer.addKey("stranger", "ES256", false);
  running = await serveHttp({
    host: "127.0.0.1",
    port: 0,
    configFile: writeConfig({
      auth: {
        tokens: configEntries(ci),
        oauth: {
          issuer: issuer.url,
          audience: AUDIENCE,
          resource: RESOURCE,
          scope_map: {
            "mcp:read": ["tree:/**", "describe:/**"],
            "mcp:call": ["call:/fx/**"],
          },
        },
      },
      tree: [
        { path: "/fx", source: { backend: "stdio", command: fixtureCommand() } },
        { path: "/other", source: { backend: "stdio", command: fixtureCommand() } },
      ],
    }),
    log,
  });
  url = `http://127.0.0.1:${running.port}`;
});
afterAll(async () => {
  await running?.close();
  await issuer?.close();
});

const jwt = (claims: Record<string, unknown> = {}, kid?: string) =>
  issuer.sign({ aud: AUDIENCE, scope: "mcp:read mcp:call", ...claims }, kid);
const post = (path: string, body: unknown, auth?: string) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(auth === undefined ? {} : { authorization: `Bearer ${auth}` }),
    },
    body: JSON.stringify(body),
  });
const call = (auth?: string) =>
  post("/meta_call", { path: "/fx/pid", args: {} }, auth).then(async (res) => ({
    status: res.status,
    challenge: res.headers.get("www-authenticate"),
    body: (await res.json()) as any,
  }));
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);

describe("bearer JWTs", () => {
  it("are accepted when signed by the issuer for this audience, with the scopes they map to", async () => {
    const res = await call(await jwt());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.output.content[0].text).toMatch(/^\d+$/);
  });

  it("are refused with 401 and a challenge naming the resource metadata", async () => {
    const refused = {
      "wrong audience": await jwt({ aud: "https://elsewhere.test/mcp" }),
      "wrong issuer": await jwt({ iss: "https://evil.test" }),
      expired: await jwt({ exp: now() - 120 }),
      "not yet valid": await jwt({ nbf: now() + 120 }),
      "no exp": await issuer.sign({ aud: AUDIENCE, exp: undefined }),
      "unknown key": await jwt({}, "stranger"),
      "alg none": `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ iss: issuer.url, aud: AUDIENCE, sub: "alice", exp: now() + 60 })}.`,
      "HS256 with the public key as secret": await hsWithPublicKey(),
      "signature of another token": (await jwt()).replace(
        /\.[^.]+$/,
        `.${(await jwt({ sub: "bob" })).split(".")[2]}`,
      ),
    };
    for (const [what, bad] of Object.entries(refused)) {
      const res = await call(bad);
      expect(res.status, what).toBe(401);
      expect(res.challenge, what).toBe(
        `Bearer resource_metadata="${RESOURCE}/.well-known/oauth-protected-resource", error="invalid_token"`,
      );
      expect(res.body.error.kind).toBe("unauthenticated");
      expect(JSON.stringify(res.body)).not.toContain(bad);
    }
    const logged = lines().filter((l) => l.msg === "credentials refused");
    expect(logged.map((l) => l.why)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/aud/),
        expect.stringMatching(/iss/),
        "the token has expired",
        expect.stringMatching(/nbf/),
        "no key of the issuer matches the token",
        "the token's algorithm is not accepted",
      ]),
    );
    for (const bad of Object.values(refused)) expect(JSON.stringify(lines())).not.toContain(bad);
  });

  it("a request without a token to an MCP endpoint is pointed to that endpoint's metadata", async () => {
    const res = await post("/mcp", { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${RESOURCE}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("a token lacking a scope gets 403 with the token scope to ask for (step-up)", async () => {
    const res = await call(await jwt({ scope: "mcp:read" }));
    expect(res.status).toBe(403);
    expect(res.challenge).toBe(
      `Bearer error="insufficient_scope", scope="mcp:call", resource_metadata="${RESOURCE}/.well-known/oauth-protected-resource"`,
    );
    expect(res.body.error.details.scope).toBe("call:/fx/pid");
    // No mapped scope grants it: there is no scope to ask the authorization server for.
    const other = await post("/meta_call", { path: "/other/pid", args: {} }, await jwt());
    expect(other.status).toBe(403);
    expect(other.headers.get("www-authenticate")).toBe(
      `Bearer error="insufficient_scope", resource_metadata="${RESOURCE}/.well-known/oauth-protected-resource"`,
    );
  });

  it("a token scope written as ACTION:GLOB grants nothing by itself; Entra's scp array is read too", async () => {
    // No broker scope at all: the path is not there, as far as the token can tell.
    expect((await call(await jwt({ scope: "call:/fx/pid" }))).status).toBe(404);
    expect((await call(await jwt({ scope: "admin:/** call:/**" }))).status).toBe(404);
    expect((await call(await jwt({ scope: undefined, scp: ["mcp:call"] }))).status).toBe(200);
  });

  it("static tokens keep working beside OAuth", async () => {
    expect((await call(ci.bearer)).status).toBe(200);
    expect(lines().find((l) => l.msg === "listening")).toMatchObject({
      auth: "on",
      tokens: 1,
      oauth_issuer: issuer.url,
    });
  });

  it("an SDK client connects to /mcp with a JWT and calls a tool", async () => {
    const client = new Client({ name: "oauth-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await jwt()}` } },
      }),
    );
    const result = await client.callTool({ name: "meta_call", arguments: { path: "/fx/pid" } });
    expect(result.isError).toBeFalsy();
    await client.close();
  });

  it("a JWT whose subject is a static token's id is not that token: not its session, not its audit", async () => {
    // A session opened by the static token "ci" (every scope).
    const open = await postMcp(`${url}/mcp`, INITIALIZE, bearer(ci));
    const session = open.headers.get("mcp-session-id")!;
    expect(session).toBeTruthy();
    const impostor = await postMcp(
      `${url}/mcp`,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "meta_call", arguments: { path: "/other/pid" } },
      },
      {
        authorization: `Bearer ${await jwt({ sub: "ci", scope: "mcp:read" })}`,
        "mcp-session-id": session,
      },
    );
    expect(impostor.status).toBe(403);
    await call(await jwt({ sub: "ci" }));
    await expect
      .poll(() =>
        lines()
          .filter((l) => l.audit?.path === "/fx/pid")
          .map((l) => l.audit.token),
      )
      .toContain("oauth:ci");
  });

  it("garbage and mangled tokens are 401, never a crash or a pass", async () => {
    const good = await jwt();
    const mangled = fc
      .tuple(fc.nat(good.length - 1), fc.constantFrom(..."ABCxyz019-_."))
      .map(([at, c]) => good.slice(0, at) + c + good.slice(at + 1))
      .filter((t) => t !== good);
    const bearerText = fc.stringMatching(/^[A-Za-z0-9._~+/-]+=*$/);
    await fc.assert(
      fc.asyncProperty(fc.oneof(mangled, bearerText), async (bad) => {
        const res = await call(bad);
        // A changed last character of a part may change only unused bits: the same token.
        const bytes = (token: string) =>
          token.split(".").map((part) => Buffer.from(part, "base64url").toString("hex"));
        if (res.status === 200) expect(bytes(bad)).toEqual(bytes(good));
        else expect(res.status).toBe(401);
      }),
      { seed: 19, numRuns: fuzzRuns(150) },
    );
  });
});

describe("the protected resource metadata (RFC 9728)", () => {
  it("is served without a token, for the broker and for each MCP endpoint", async () => {
    const root = await fetch(`${url}/.well-known/oauth-protected-resource`);
    expect(root.status).toBe(200);
    expect(await root.json()).toEqual({
      resource: RESOURCE,
      authorization_servers: [issuer.url],
      bearer_methods_supported: ["header"],
      scopes_supported: ["mcp:read", "mcp:call"],
      resource_name: "mcp-broker",
    });
    const mcp = (await (
      await fetch(`${url}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as any;
    expect(mcp.resource).toBe(`${RESOURCE}/mcp`);
    const source = (await (
      await fetch(`${url}/.well-known/oauth-protected-resource/mcp/fx`)
    ).json()) as any;
    expect(source.resource).toBe(`${RESOURCE}/mcp/fx`);
    const unknown = await fetch(`${url}/.well-known/oauth-protected-resource/meta_tree/x`);
    expect(unknown.status).toBe(404);
  });
});

describe("an issuer that cannot be asked", () => {
  it("makes a JWT 503 (the token may be good), and static tokens still pass", async () => {
    const down = await TestIssuer.start();
    await down.addKey("k1");
    const downUrl = down.url;
    const token = await down.sign({ aud: AUDIENCE, scope: "mcp:call" });
    await down.close();
    const broker = await serveHttp({
      host: "127.0.0.1",
      port: 0,
      configFile: writeConfig({
        auth: {
          tokens: configEntries(ci),
          oauth: { issuer: downUrl, audience: AUDIENCE },
        },
        tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
      }),
      log,
    });
    try {
      const at = `http://127.0.0.1:${broker.port}/meta_tree`;
      const res = await fetch(at, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: "{}",
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as any).error.message).toMatch(
        /cannot ask the authorization server/,
      );
      expect((await fetch(at, { method: "POST", headers: bearer(ci), body: "{}" })).status).toBe(
        200,
      );
    } finally {
      await broker.close();
    }
  });
});

/** The classic confusion: the RSA public key, as PEM text, used as an HMAC secret. */
async function hsWithPublicKey(): Promise<string> {
  const pem = await exportSPKI(issuer.publicKey("k1"));
  const header = base64url({ alg: "HS256", typ: "JWT", kid: "k1" });
  const payload = base64url({
    iss: issuer.url,
    aud: AUDIENCE,
    sub: "alice",
    scope: "mcp:call",
    exp: now() + 60,
  });
  const signature = createHmac(
    "sha256",
    createPublicKey(pem).export({ type: "spki", format: "pem" }),
  )
    .update(`${header}.${payload}`)
    .digest("base64url");
  return `${header}.${payload}.${signature}`;
}
