import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { asBrokerError } from "../../../contract/errors.js";
import { hostGuard, type HostGuardOptions } from "./index.js";

function app(options?: HostGuardOptions) {
  const hono = new Hono();
  hono.onError((err, c) => c.json({ error: asBrokerError(err).toJSON() }, 403));
  hono.use("*", hostGuard(options));
  hono.get("/", (c) => c.text("ok"));
  return (headers: Record<string, string>) => hono.request("/", { headers });
}

describe("hostGuard", () => {
  it("lets loopback hosts through, with or without a port", async () => {
    const get = app();
    for (const host of ["localhost", "LOCALHOST:8100", "127.0.0.1:1", "[::1]:8100", "[::1]"]) {
      expect((await get({ host })).status).toBe(200);
    }
  });

  it("refuses other hosts with 403, saying which setting would allow them", async () => {
    const res = await app()({ host: "evil.example:8100" });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.message).toBe(
      'Host "evil.example:8100" is not allowed; add it to http.allowed_hosts in the config if this broker should answer to it',
    );
    expect((await app()({ host: "localhost.evil.example" })).status).toBe(403);
  });

  it("refuses a foreign Origin even on a loopback Host, and lets loopback origins through", async () => {
    const get = app();
    expect((await get({ host: "localhost", origin: "https://evil.example" })).status).toBe(403);
    expect((await get({ host: "localhost", origin: "http://localhost:3000" })).status).toBe(200);
    expect((await get({ host: "localhost", origin: "null" })).status).toBe(403);
  });

  it("takes configured hosts and origins instead of the defaults", async () => {
    const get = app({ allowedHosts: ["broker.internal"], allowedOrigins: ["https://app.example"] });
    expect((await get({ host: "broker.internal:443", origin: "https://app.example" })).status).toBe(
      200,
    );
    expect((await get({ host: "localhost" })).status).toBe(403);
    expect((await get({ host: "broker.internal", origin: "http://localhost" })).status).toBe(403);
  });

  it('with allowedHosts "any", checks only the Origin', async () => {
    const get = app({ allowedHosts: "any" });
    expect((await get({ host: "10.1.2.3:8100" })).status).toBe(200);
    expect((await get({ host: "10.1.2.3:8100", origin: "https://evil.example" })).status).toBe(403);
  });
});
