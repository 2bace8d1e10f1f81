import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", "./test/summary-reporter.ts"],
    // Pinned tool definitions of the tests' configs go to a folder of the tests', not the user's.
    env: { XDG_STATE_HOME: join(tmpdir(), "mcp-broker-test-state") },
  },
});
