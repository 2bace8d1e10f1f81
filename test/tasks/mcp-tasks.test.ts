import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { runConformance } from "../helpers/conformance.js";

const JOBS = fileURLToPath(new URL("../fixtures/job-tools-server.mjs", import.meta.url));

let broker: TestBroker;
beforeAll(async () => {
  broker = await startBroker({
    registry: { predefined: false },
    tasks: { answer_within_ms: 100 },
    tree: [
      {
        path: "/jobs",
        source: { backend: "stdio", command: [process.execPath, JOBS], name: "jobs" },
      },
    ],
  });
});
afterAll(() => broker?.close());

describe("MCP's Tasks extension, over the broker's ordinary tools", () => {
  it.each([
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-dispatch-and-envelope",
    "tasks-request-headers",
  ])(
    "passes the official scenario %s",
    async (scenario) => {
      const result = await runConformance(`${broker.url}/mcp/jobs`, "2026-07-28", scenario, true);
      expect(result.get(scenario)).toMatchObject({ failed: 0 });
    },
    60_000,
  );
});
