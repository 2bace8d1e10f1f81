import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { collect } from "./cli.js";

const SUITE = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url),
);

export interface ScenarioResult {
  passed: number;
  failed: number;
}

/** The revisions the suite checks a server against. */
export type Requirements = "2025-11-25" | "2026-07-28";

/**
 * Runs the official conformance suite's server scenarios against a URL:
 * those a revision requires, or one scenario; results by scenario.
 */
export async function runConformance(
  url: string,
  what: { requirements: Requirements } | { scenario: string; requirements?: Requirements },
): Promise<Map<string, ScenarioResult>> {
  const scenario = "scenario" in what ? what.scenario : undefined;
  const args = [
    SUITE,
    "server",
    "--url",
    url,
    ...(scenario ? ["--scenario", scenario] : []),
    ...(what.requirements && !scenario ? ["--requirements", what.requirements] : []),
    ...(what.requirements && scenario ? ["--spec-version", what.requirements] : []),
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
