import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientCredentials } from "../../src/sources/mcp/client-credentials.js";
import { listenOnLoopback, type LoopbackServer } from "../helpers/loopback-mcp.js";
import { fuzzRuns } from "../helpers/fuzz.js";

/**
 * Whatever authorization server a backend's metadata names, the client
 * secret goes to none off the backend's host unless `issuer` says so: the
 * grant fails first, saying what to set, and nothing is sent anywhere else.
 */
let backend: LoopbackServer;
let named: unknown = [];
const requests: string[] = [];

beforeAll(async () => {
  backend = await listenOnLoopback((req, res) => {
    requests.push(req.url ?? "");
    if (req.url?.startsWith("/.well-known/oauth-protected-resource")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ resource: backend.url, authorization_servers: named }));
      return;
    }
    res.writeHead(404).end();
  });
});
afterAll(() => backend?.close());

/** Why a first grant by fresh credentials for the backend failed. */
const grantFailure = () =>
  new ClientCredentials(backend.url, {
    client_id: "broker",
    client_secret: "never-sent-elsewhere",
  })
    .token()
    .then(
      () => new Error("a token came back"),
      (err: Error) => err,
    );

describe("client credentials without an issuer, whatever the backend names", () => {
  it("refuse any authorization server on another host before sending it anything (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.webUrl({ withQueryParameters: true }).filter((u) => new URL(u).hostname !== "127.0.0.1"),
        async (elsewhere) => {
          named = [elsewhere];
          requests.length = 0;
          const failure = await grantFailure();
          expect(failure.message).toContain("set auth.client_credentials.issuer");
          expect(failure.message).not.toContain("never-sent-elsewhere");
          // Only the backend's own metadata was asked for; no token request went anywhere.
          expect(requests.every((path) => path.startsWith("/.well-known/"))).toBe(true);
        },
      ),
      { numRuns: fuzzRuns(60) },
    );
  });

  it("treat metadata that names no server, or nonsense, as naming the backend's own origin", async () => {
    for (const nonsense of [[], ["not a url"], [42], null, "http://elsewhere.example"]) {
      named = nonsense;
      const failure = await grantFailure();
      // The backend's own origin has no authorization server here: discovery fails there,
      // never with a request to another host.
      expect(failure.message).not.toContain("elsewhere.example");
      expect(failure.message).not.toContain("never-sent-elsewhere");
    }
  });
});
