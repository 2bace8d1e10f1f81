import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp } from "../helpers/mcp-client.js";

let broker: TestBroker;
beforeAll(async () => {
  broker = await startBroker(
    { tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }] },
    { secret: "s3cret-value" },
  );
});
afterAll(() => broker?.close());

describe("shared secret", () => {
  it.each([
    ["no header", {}],
    ["a wrong secret", { authorization: "Bearer nope" }],
    ["a longer wrong secret", { authorization: "Bearer s3cret-value-and-more" }],
    ["another scheme", { authorization: "Basic czNjcmV0LXZhbHVl" }],
    ["an empty bearer", { authorization: "Bearer " }],
  ])("401 with WWW-Authenticate for %s, on every endpoint", async (_what, headers) => {
    for (const endpoint of ["/meta_tree", "/meta_desc", "/meta_call", "/mcp"]) {
      const res = await fetch(broker.url + endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: '{"path": "/"}',
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      const body = (await res.json()) as any;
      expect(body.error.kind).toBe("unauthenticated");
      expect(JSON.stringify(body)).not.toContain("s3cret-value");
    }
  });

  it("serves with the right secret, on REST and MCP", async () => {
    const res = await broker.post(
      "/meta_tree",
      { path: "/" },
      { authorization: "Bearer s3cret-value" },
    );
    expect(res.status).toBe(200);
    const client = await connectHttp(broker.url, { authorization: "Bearer s3cret-value" });
    expect((await client.listTools()).tools).toHaveLength(5);
    await client.close();
  });

  it("leaves /healthz open", async () => {
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
  });
});
