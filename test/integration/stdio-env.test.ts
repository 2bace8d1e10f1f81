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
});
