import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { bubblewrap } from "./test/helpers/bubblewrap.js";

// Pinned tool definitions of the tests' configs go to a folder of the tests', not the user's.
const env = { XDG_STATE_HOME: join(tmpdir(), "mcp-broker-test-state") };

/**
 * Test files run a second time with every stdio source in the default sandbox
 * (the `sandboxed` project): the npm servers and fixtures they use work the
 * same sandboxed. Left out: what a sandbox changes on purpose (supervision
 * kills a backend by the pid it reports, which is the sandbox's own). The
 * project needs bubblewrap (CI installs it); without, it says it skipped.
 */
const SANDBOXED = [
  "test/integration/clients.test.ts",
  "test/integration/mcp-http.test.ts",
  "test/integration/aggregate.test.ts",
  "test/integration/per-source.test.ts",
  "test/integration/rest-meta.test.ts",
  "test/integration/meta-api-parity.test.ts",
  "test/integration/meta-search.test.ts",
];

const sandboxed = bubblewrap();
if (sandboxed.why !== "") console.warn(`The sandboxed test project is ${sandboxed.why}`);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", "./test/summary-reporter.ts"],
    projects: [
      {
        extends: true,
        test: { name: "default", include: ["test/**/*.test.ts", "src/**/*.test.ts"], env },
      },
      ...(sandboxed.why === ""
        ? [
            {
              extends: true as const,
              test: {
                name: "sandboxed",
                include: SANDBOXED,
                env: { ...env, MCP_BROKER_TEST_SANDBOX: "1" },
              },
            },
          ]
        : []),
    ],
  },
});
