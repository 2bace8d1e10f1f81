import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import {
  fixtureCommand,
  silent,
  startBroker,
  writeConfig,
  type TestBroker,
} from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";
import { serveHttp } from "../../src/serve.js";

/** What a token may do, as its config says now, whichever way it came in. */
const fx = (path: string) => ({
  path,
  source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["pid"] },
});
const reader = token("reader", ["call:/fx/**", "tree:/**"]);
let broker: TestBroker | undefined;
afterAll(() => broker?.close());

describe("scopes are read on every request", () => {
  it("a reload that narrows a token's scopes reaches its open MCP sessions at once", async () => {
    const config = (scopes: string[]) => ({
      expose: "flat",
      registry: { predefined: false },
      auth: { tokens: configEntries({ ...reader, scopes }) },
      tree: [fx("/fx"), fx("/other")],
    });
    broker = await startBroker(config(reader.scopes), { reload: true });
    const client = await connectHttp(broker.url, bearer(reader));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["fx__pid"]);
    expect(
      Number(textOf(await client.callTool({ name: "fx__pid", arguments: {} }))),
    ).toBeGreaterThan(0);

    writeFileSync(broker.configFile, JSON.stringify(config(["call:/other/**", "tree:/**"])));
    await expect
      .poll(
        async () => (await broker!.post("/meta_call", { path: "/fx/pid" }, bearer(reader))).status,
        {
          timeout: 10_000,
        },
      )
      .toBe(403);
    // The session opened before the reload gets what a new one would.
    await expect(client.callTool({ name: "fx__pid", arguments: {} })).rejects.toMatchObject({
      code: -32600,
      data: { kind: "forbidden", http_status: 403 },
    });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["other__pid"]);
    await client.close();
  });
});

describe("principals", () => {
  it("no token may take the name the broker gives a caller of its own", async () => {
    const impostor = token("shared-secret", ["*:/**"]);
    await expect(
      startBroker({ tree: [], auth: { tokens: configEntries(impostor) } }),
    ).rejects.toThrow(/id: .*the broker's own name for a caller/);
  });
});

describe("the protected resource metadata", () => {
  it("is not built from an unchecked Host header: on every interface without allowed_hosts, resource is required", async () => {
    const configFile = writeConfig({
      tree: [],
      auth: { oauth: { issuer: "https://issuer.example", audience: "https://broker.example/mcp" } },
    });
    await expect(serveHttp({ host: "0.0.0.0", port: 0, configFile, log: silent })).rejects.toThrow(
      /\$\.auth\.oauth\.resource: the broker listens on every interface/,
    );
  });
});
