import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE, startBroker, type TestBroker } from "../helpers/broker.js";
import { passing, runConformance, type ScenarioResult } from "../helpers/conformance.js";

const CONFORMANCE_FIXTURE = FIXTURE.replace("fixture-server.mjs", "conformance-server.mjs");

let fixture: ChildProcess;
let fixtureUrl: string;
let broker: TestBroker;
let direct: Map<string, ScenarioResult>;

beforeAll(async () => {
  fixture = spawn(process.execPath, [CONFORMANCE_FIXTURE, "--http", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve) =>
    fixture.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
  );
  fixtureUrl = `http://127.0.0.1:${port}/mcp`;
  broker = await startBroker({
    tree: [
      {
        path: "/conformance",
        source: { backend: "stdio", command: [process.execPath, CONFORMANCE_FIXTURE] },
      },
      { path: "/remote", source: { backend: "http", url: fixtureUrl, name: "conformance-http" } },
    ],
  });
  direct = await runConformance(fixtureUrl);
}, 180_000);
afterAll(async () => {
  await broker?.close();
  fixture?.kill();
});

describe("the official conformance suite", () => {
  it("the fixture passes most scenarios when run directly (the baseline)", () => {
    expect(passing(direct).length).toBeGreaterThanOrEqual(25);
  });

  it.each([
    ["a stdio backend", "/mcp/conformance"],
    ["an HTTP backend", "/mcp/conformance-http"],
  ])(
    "every scenario the fixture passes directly passes through the broker, for %s",
    async (_what, path) => {
      const through = await runConformance(broker.url + path);
      const missing = passing(direct).filter((name) => !passing(through).includes(name));
      expect(missing).toEqual([]);
      // The broker guards its own HTTP endpoints against DNS rebinding; the fixture does not.
      expect(through.get("dns-rebinding-protection")).toMatchObject({ failed: 0 });
    },
    180_000,
  );

  it.each([
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
  ])(
    "the aggregated /mcp passes %s",
    async (scenario) => {
      const result = await runConformance(`${broker.url}/mcp`, scenario);
      expect(result.get(scenario)).toMatchObject({ failed: 0 });
    },
    60_000,
  );
});
