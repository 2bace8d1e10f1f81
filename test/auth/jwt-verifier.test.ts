import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IssuerKeys } from "../../src/auth/oauth/issuer-keys.js";
import { JwtVerifier } from "../../src/auth/oauth/jwt-verifier.js";
import { brokerScopes, scopesGranting, tokenScopes } from "../../src/auth/oauth/token-scopes.js";
import { TestIssuer } from "../helpers/authorization-server.js";

const AUDIENCE = "api://broker";
let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await TestIssuer.start();
  await issuer.addKey("k1");
  await issuer.addKey("k2", "ES256", false);
});
afterAll(() => issuer?.close());

const verifier = (cooldownMs: number) =>
  new JwtVerifier(
    { issuer: issuer.url, audience: AUDIENCE, scope_map: { read: ["tree:/**"] } },
    new IssuerKeys(issuer.url, undefined, cooldownMs).getKey,
  );

describe("JwtVerifier", () => {
  it("takes up a rotated key once the refetch cooldown has passed, without a restart", async () => {
    const verify = verifier(400);
    const before = await issuer.sign({ aud: AUDIENCE, scope: "read" }, "k1");
    expect(await verify.verify(before)).toEqual({
      principal: { id: "oauth:alice", scopes: ["tree:/**"] },
    });
    const fetches = issuer.jwksFetches;
    issuer.publish("k2");
    const after = await issuer.sign({ aud: AUDIENCE, scope: "read", sub: "bob" }, "k2");
    // Within the cooldown the key set is not fetched again for an unknown key.
    expect(await verify.verify(after)).toEqual({
      reason: "no key of the issuer matches the token",
    });
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(await verify.verify(after)).toEqual({
      principal: { id: "oauth:bob", scopes: ["tree:/**"] },
    });
    expect(issuer.jwksFetches).toBe(fetches + 1);
    issuer.publish("k1");
  });

  it("remembers a verified token: the key set is not asked again for it", async () => {
    const verify = verifier(30_000);
    const token = await issuer.sign({ aud: AUDIENCE }, "k1");
    await verify.verify(token);
    const fetches = issuer.jwksFetches;
    for (let i = 0; i < 5; i++) expect("principal" in (await verify.verify(token))).toBe(true);
    expect(issuer.jwksFetches).toBe(fetches);
  });

  it("refuses a token issued further in the future than the clock skew", async () => {
    const verify = verifier(30_000);
    const now = Math.floor(Date.now() / 1000);
    const ahead = await issuer.sign({ aud: AUDIENCE, iat: now + 3600, exp: now + 7200 }, "k1");
    expect(await verify.verify(ahead)).toEqual({
      reason: "the token was issued in the future (iat past the clock skew)",
    });
    const slightly = await issuer.sign({ aud: AUDIENCE, iat: now + 10, exp: now + 7200 }, "k1");
    expect("principal" in (await verify.verify(slightly))).toBe(true);
  });

  it("names a client's own token by client_id, and refuses one naming nobody", async () => {
    const verify = verifier(30_000);
    const client = await issuer.sign({ aud: AUDIENCE, sub: undefined, client_id: "ci-bot" }, "k1");
    expect(await verify.verify(client)).toMatchObject({ principal: { id: "oauth:ci-bot" } });
    const nobody = await issuer.sign({ aud: AUDIENCE, sub: undefined }, "k1");
    expect(await verify.verify(nobody)).toEqual({
      reason: "the token names no subject (sub, client_id or azp)",
    });
  });
});

describe("token scopes", () => {
  it("are read from scope, scp or a configured claim, and mapped to broker scopes", () => {
    expect(tokenScopes({ scope: "a  b" })).toEqual(["a", "b"]);
    expect(tokenScopes({ scp: ["a", 1, "b"] })).toEqual(["a", "b"]);
    expect(tokenScopes({ realm_access: { roles: ["r"] } }, "realm_access.roles")).toEqual(["r"]);
    expect(tokenScopes({ realm_access: "x" }, "realm_access.roles")).toEqual([]);
    expect(tokenScopes({ constructor: "x" }, "constructor.name")).toEqual([]);
    const map = { read: ["tree:/**", "describe:/**"], cms: ["call:/cms/**"] };
    // A scope spelt like a broker scope grants nothing unless the operator said so.
    expect(brokerScopes(["read", "call:/x/**", "admin:/**", "unknown"], map)).toEqual([
      "tree:/**",
      "describe:/**",
    ]);
    expect(brokerScopes(["read", "call:/x/**", "unknown", "admin:nope"], map, true)).toEqual([
      "tree:/**",
      "describe:/**",
      "call:/x/**",
    ]);
    expect(scopesGranting("call", "/cms/get", map)).toEqual(["cms"]);
    expect(scopesGranting("admin", "/healthz", map)).toEqual([]);
    expect(scopesGranting("admin", "/healthz", map, true)).toEqual(["admin:/healthz"]);
  });
});
