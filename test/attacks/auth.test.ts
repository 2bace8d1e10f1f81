import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fixtureCommand,
  silent,
  startBroker,
  writeConfig,
  type TestBroker,
} from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";
import { serveHttp } from "../../src/app/serve.js";

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
    // It may no longer call it: to this session, as to a new one, the tool is unknown.
    await expect(client.callTool({ name: "fx__pid", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('unknown tool "fx__pid"'),
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

describe("what a token may not see", () => {
  const narrow = token("narrow", ["call:/fx/**", "tree:/fx/**", "describe:/fx/**"]);
  let guarded: TestBroker;
  beforeAll(async () => {
    guarded = await startBroker({
      tree: [fx("/fx"), fx("/secret")],
      auth: { tokens: configEntries(narrow) },
    });
  });
  afterAll(() => guarded?.close());

  it("is answered as what is not there: same status, same words", async () => {
    for (const route of ["/meta_desc", "/meta_tree", "/meta_call"]) {
      const hidden = await guarded.post(route, { path: "/secret/pid" }, bearer(narrow));
      const absent = await guarded.post(route, { path: "/nothing/pid" }, bearer(narrow));
      expect([hidden.status, absent.status], route).toEqual([404, 404]);
      expect(hidden.body.error.message.replace("/secret/pid", "P")).toBe(
        absent.body.error.message.replace("/nothing/pid", "P"),
      );
    }
  });

  it("error messages name only what it may see: sources, registered tools", async () => {
    const res = await fetch(`${guarded.url}/mcp/nope`, {
      method: "POST",
      headers: { ...bearer(narrow), "content-type": "application/json" },
      body: "{}",
    });
    const { error } = (await res.json()) as { error: { message: string } };
    expect(error.message).toBe('no source named "nope"; the sources are fx');
    const rpc = await guarded.post(
      "/rpc",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { tool_name: "calculator", function_name: "calculate", arguments: {} },
      },
      bearer(narrow),
    );
    expect(rpc.body.error.code).toBe(-32002);
    expect(rpc.body.error.data.details).toBe(
      'no tool named "calculator" is registered; the registered tools are (none)',
    );
  });
});
