import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestIssuer } from "../helpers/authorization-server.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { ProtectedBackend } from "../helpers/protected-backend.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

/**
 * An HTTP backend that demands its own OAuth tokens: the broker gets them by
 * the client credentials grant, renews them, and never sends the caller's.
 */
const caller = token("caller", ["*:/**"]);
let issuer: TestIssuer;
let backend: ProtectedBackend;
let broker: TestBroker;

beforeAll(async () => {
  issuer = await TestIssuer.start();
  await issuer.addKey("k1");
  issuer.clients.set("broker-client", "s3cret:with/odd chars");
  issuer.grantLifetimeS = 3;
  backend = await ProtectedBackend.start(issuer.url);
  broker = await startBroker({
    auth: { tokens: configEntries(caller) },
    tree: [
      {
        path: "/remote",
        source: {
          backend: "http",
          url: backend.url,
          auth: {
            client_credentials: {
              client_id: "broker-client",
              client_secret: "s3cret:with/odd chars",
              scope: "tools",
              issuer: issuer.url,
            },
          },
        },
      },
    ],
  });
});
afterAll(async () => {
  await broker?.close();
  await backend?.close();
  await issuer?.close();
});

const whoami = () =>
  broker.post("/meta_call", { path: "/remote/whoami", args: {} }, bearer(caller));

describe("an HTTP backend with auth.client_credentials", () => {
  it("is called with the broker's own token, for the backend as resource, never the caller's", async () => {
    const res = await whoami();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.output.content[0].text).toBe("broker-client");
    expect(issuer.grants[0]).toEqual({ client: "broker-client", resource: backend.url });
    expect(backend.authorizations.some((a) => a?.includes(caller.bearer))).toBe(false);
  });

  it("renews the token before it expires: calls go on past its lifetime", async () => {
    const grants = issuer.grants.length;
    const refusals = backend.refusals;
    const deadline = Date.now() + 4_500;
    while (Date.now() < deadline) {
      const res = await whoami();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(issuer.grants.length).toBeGreaterThanOrEqual(grants + 2);
    // Renewed before expiry: no request of the broker's was refused for an expired token.
    expect(backend.refusals).toBe(refusals);
  });
});

describe("refused client credentials", () => {
  it("fail the source's start with the authorization server's answer, never the secret", async () => {
    const config = (secret: string) => ({
      tree: [
        {
          path: "/remote",
          source: {
            backend: "http",
            url: backend.url,
            auth: { client_credentials: { client_id: "broker-client", client_secret: secret } },
          },
        },
      ],
    });
    const failure = await startBroker(config("wrong-secret-value")).then(
      async (b) => {
        await b.close();
        throw new Error("the broker started with a wrong secret");
      },
      (err: Error) => err,
    );
    expect(failure.message).toMatch(/\/remote.*invalid_client/s);
    expect(failure.message).not.toContain("wrong-secret-value");
  });
});
