import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { collect } from "./cli.js";

const SUITE_0_2 = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url),
);
const SUITE_0_1 = fileURLToPath(
  new URL("../../node_modules/mcp-conformance-0.1/dist/index.js", import.meta.url),
);

export interface ScenarioResult {
  passed: number;
  failed: number;
}

/**
 * The suites a server is checked with: the 0.1.x suite (its scenarios are
 * 2025-11-25's), and the 0.2.x suite with the requirements of each revision.
 */
export const SUITES = ["0.1 (2025-11-25)", "2025-11-25", "2026-07-28"] as const;
export type Suite = (typeof SUITES)[number];

/**
 * Runs one of the official conformance suites' server scenarios against a
 * URL: all of them, or one; results by scenario.
 */
export async function runConformance(
  url: string,
  suite: Suite,
  scenario?: string,
  /** Runs an extension's scenario, which is on no revision's timeline. */
  extension = false,
): Promise<Map<string, ScenarioResult>> {
  const args =
    suite === "0.1 (2025-11-25)"
      ? [SUITE_0_1, "server", "--url", url, ...(scenario ? ["--scenario", scenario] : [])]
      : [
          SUITE_0_2,
          "server",
          "--url",
          url,
          ...(scenario
            ? ["--scenario", scenario, "--spec-version", suite, ...(extension ? ["--force"] : [])]
            : ["--requirements", suite]),
        ];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  const { stdout, stderr } = await collect(child);
  const results = new Map<string, ScenarioResult>();
  // eslint-disable-next-line no-control-regex
  const plain = stdout.replace(/\x1b\[[0-9;]*m/g, "");
  for (const match of plain.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm)) {
    results.set(match[1]!, { passed: Number(match[2]), failed: Number(match[3]) });
  }
  const single = /Passed: (\d+)\/\d+, (\d+) failed/.exec(plain);
  if (scenario && single)
    results.set(scenario, { passed: Number(single[1]), failed: Number(single[2]) });
  if (results.size === 0)
    throw new Error(`the conformance suite printed no results:\n${plain}\n${stderr}`);
  return results;
}

export const passing = (results: Map<string, ScenarioResult>) =>
  [...results]
    .filter(([, r]) => r.failed === 0 && r.passed > 0)
    .map(([name]) => name)
    .sort();
