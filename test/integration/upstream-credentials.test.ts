import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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
            auth: {
              client_credentials: {
                client_id: "broker-client",
                client_secret: secret,
                issuer: issuer.url,
              },
            },
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

describe("client credentials without an issuer", () => {
  const config = (url: string) => ({
    tree: [
      {
        path: "/remote",
        source: {
          backend: "http",
          url,
          auth: {
            client_credentials: {
              client_id: "broker-client",
              client_secret: "s3cret:with/odd chars",
            },
          },
        },
      },
    ],
  });

  it("go to an authorization server on the backend's own host, with no warning", async () => {
    const warn = vi.spyOn(console, "warn");
    try {
      const own = await startBroker(config(backend.url));
      try {
        const res = await own.post("/meta_call", { path: "/remote/whoami", args: {} });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.output.content[0].text).toBe("broker-client");
      } finally {
        await own.close();
      }
      expect(warn.mock.calls.flat().join(" ")).not.toContain("expectedIssuer");
    } finally {
      warn.mockRestore();
    }
  });

  it("never go to one on another host the backend names: the start fails, saying to set issuer", async () => {
    // The same authorization server, named by another host name: not the backend's host.
    const elsewhere = issuer.url.replace("127.0.0.1", "localhost");
    const misdirecting = await ProtectedBackend.start(elsewhere);
    const grants = issuer.grants.length;
    try {
      const failure = await startBroker(config(misdirecting.url)).then(
        async (b) => {
          await b.close();
          throw new Error("the broker started, sending the secret where the backend said");
        },
        (err: Error) => err,
      );
      expect(failure.message).toContain(`${elsewhere}`);
      expect(failure.message).toMatch(/\/remote.*auth\.client_credentials\.issuer/s);
      expect(failure.message).not.toContain("s3cret");
      expect(issuer.grants.length).toBe(grants);
    } finally {
      await misdirecting.close();
    }
  });
});
