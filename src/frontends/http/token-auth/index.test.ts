import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { Credentials } from "../../../auth/credentials.js";
import { sha256, TokenBook } from "../../../auth/token-book.js";
import type { Logger } from "../../../contract/log.js";
import { tokenAuth, type AuthEnv, type RefusalReason } from "./index.js";

const TOKEN = "a-token-of-forty-characters-or-so-000000";

function app(credentials: Credentials) {
  const refusals: RefusalReason[] = [];
  const warnings: unknown[] = [];
  const log = { warn: (fields: unknown) => warnings.push(fields) } as unknown as Logger;
  const hono = new Hono<AuthEnv>();
  hono.use(
    "*",
    tokenAuth({ credentials: () => credentials, log, refused: (r) => refusals.push(r) }),
  );
  hono.get("/", (c) => c.json(c.get("principal")));
  const get = (headers: Record<string, string> = {}) => hono.request("/", { headers });
  return { get, refusals, warnings };
}

const withToken = () =>
  new Credentials(
    new TokenBook([{ id: "ci", sha256: sha256(TOKEN).toString("hex"), scopes: ["call:/**"] }]),
  );

describe("tokenAuth", () => {
  it("finds the principal of a known bearer token", async () => {
    const res = await app(withToken()).get({ authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: "ci", scopes: ["call:/**"] });
  });

  it.each([
    ["missing", {}, 'Bearer realm="mcp-broker"'],
    [
      "malformed",
      { authorization: `Basic ${TOKEN}` },
      'Bearer realm="mcp-broker", error="invalid_request"',
    ],
    [
      "invalid",
      { authorization: "Bearer not-it" },
      'Bearer realm="mcp-broker", error="invalid_token"',
    ],
  ] as const)(
    "answers a %s token 401 with a challenge, one log line and a count",
    async (reason, headers, challenge) => {
      const { get, refusals, warnings } = app(withToken());
      const res = await get(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(challenge);
      expect(((await res.json()) as { error: { kind: string } }).error.kind).toBe(
        "unauthenticated",
      );
      expect(refusals).toEqual([reason]);
      expect(warnings).toHaveLength(1);
      expect(JSON.stringify(warnings)).not.toContain("not-it");
    },
  );

  it("lets everyone in as anonymous when nothing is asked", async () => {
    const res = await app(new Credentials(new TokenBook([]))).get();
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe("anonymous");
  });
});
