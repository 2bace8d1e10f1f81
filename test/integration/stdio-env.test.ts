import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";

let broker: TestBroker;
const cwd = realpathSync(mkdtempSync(join(tmpdir(), "mcp-broker-cwd-")));

beforeAll(async () => {
  process.env.MCP_BROKER_TEST_SECRET = "must-not-leak";
  process.env.MCP_BROKER_TEST_PASSED = "passed-on-purpose";
  process.env.HTTPS_PROXY = "http://proxy.invalid:3128";
  process.env.NO_PROXY = "127.0.0.1,localhost";
  broker = await startBroker({
    tree: [
      {
        path: "/fx",
        source: {
          backend: "stdio",
          command: fixtureCommand(),
          cwd,
          env: { FIXTURE_VALUE: "from-config", FORWARDED: "${MCP_BROKER_TEST_PASSED}" },
          tool_filter: ["env"],
        },
      },
    ],
  });
});
afterAll(async () => {
  delete process.env.MCP_BROKER_TEST_SECRET;
  delete process.env.MCP_BROKER_TEST_PASSED;
  delete process.env.HTTPS_PROXY;
  delete process.env.NO_PROXY;
  await broker?.close();
});

describe("a stdio source's process", () => {
  it("runs in its cwd with its env, and does not inherit the broker's other variables", async () => {
    const res = await broker.post("/meta_call", { path: "/fx/env", args: {} });
    const seen = JSON.parse(res.body.output.content[0].text);
    expect(seen.cwd).toBe(cwd);
    expect(seen.env.FIXTURE_VALUE).toBe("from-config");
    expect(seen.env.FORWARDED).toBe("passed-on-purpose");
    expect(seen.env.PATH).toBeTruthy();
    expect(seen.env.MCP_BROKER_TEST_SECRET).toBeUndefined();
  });

  it("reaches the network as the user's shell does: the proxies and certificate authorities", async () => {
    const res = await broker.post("/meta_call", { path: "/fx/env", args: {} });
    const { env } = JSON.parse(res.body.output.content[0].text);
    expect(env.HTTPS_PROXY).toBe("http://proxy.invalid:3128");
    expect(env.NO_PROXY).toBe("127.0.0.1,localhost");
    // Where this process has one (a machine behind a TLS-inspecting proxy), it is passed on.
    expect(env.NODE_EXTRA_CA_CERTS).toBe(process.env.NODE_EXTRA_CA_CERTS);
  });
});
