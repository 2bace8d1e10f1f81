import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE, startBroker, type TestBroker } from "../helpers/broker.js";
import { passing, runConformance, SUITES, type Suite } from "../helpers/conformance.js";

/**
 * The official conformance suites through the broker's per-source endpoint,
 * for every pairing: each suite (0.1.x for 2025-11-25; 0.2.x with the
 * requirements of 2025-11-25 and of 2026-07-28) against every kind of backend
 * (2025-11-25 only, 2026-07-28 only, both with the revision probed, both
 * with each revision pinned by config), each over stdio and over HTTP. What
 * passes directly against the reference server of the suite's revision must
 * pass through the broker, whatever the backend speaks.
 */
const SCRIPT = {
  c25: FIXTURE.replace("fixture-server.mjs", "conformance-server.mjs"),
  c26: FIXTURE.replace("fixture-server.mjs", "conformance-server-2026.mjs"),
};

/** The backends, as the suites' scenarios need them, by the revisions they speak. */
const BACKENDS = [
  { name: "only2025", script: SCRIPT.c25, args: [], revision: undefined },
  { name: "only2026", script: SCRIPT.c26, args: ["--only-2026"], revision: undefined },
  { name: "both", script: SCRIPT.c26, args: [], revision: undefined },
  { name: "both-pinned2025", script: SCRIPT.c26, args: [], revision: "2025-11-25" },
  { name: "both-pinned2026", script: SCRIPT.c26, args: [], revision: "2026-07-28" },
] as const;
type Backend = (typeof BACKENDS)[number];

/** The reference server each suite's revision is measured against directly. */
const REFERENCE: Record<Suite, string> = {
  "0.1 (2025-11-25)": SCRIPT.c25,
  "2025-11-25": SCRIPT.c25,
  "2026-07-28": SCRIPT.c26,
};

/**
 * A backend spoken to in 2025-11-25 (one that speaks only that, or one
 * pinned to it) has no input-required rounds of its own: the broker asks the
 * client in rounds for it, but what a 2026-07-28 reference tool does with
 * sealed request state across rounds, and its diagnostics, it cannot do.
 * Through it, a 2026-07-28 client gets these scenarios.
 */
const THROUGH_A_2025_SESSION = [
  "caching",
  "completion-complete",
  "http-header-validation",
  "input-required-result-ignore-extra-params",
  "input-required-result-missing-input-response",
  "input-required-result-unsupported-methods",
  "input-required-result-validate-input",
  "prompts-get-embedded-resource",
  "prompts-get-simple",
  "prompts-get-with-args",
  "prompts-get-with-image",
  "prompts-list",
  "resources-list",
  "resources-read-binary",
  "resources-read-text",
  "resources-templates-read",
  "sep-2164-resource-not-found",
  "server-sse-multiple-streams",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-error",
  "tools-call-image",
  "tools-call-mixed-content",
  "tools-call-simple-text",
  "tools-call-with-progress",
  "tools-list",
];

const children: ChildProcess[] = [];
const direct = {} as Record<Suite, string[]>;
let broker: TestBroker;

async function serveOverHttp(script: string, args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, [script, ...args, "--http", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const port = await new Promise<number>((resolve) =>
    child.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
  );
  return `http://127.0.0.1:${port}/mcp`;
}

const pinned = (b: Backend) => (b.revision === undefined ? {} : { revision: b.revision });

beforeAll(async () => {
  const http = await Promise.all(BACKENDS.map((b) => serveOverHttp(b.script, b.args)));
  broker = await startBroker({
    registry: { predefined: false },
    tree: BACKENDS.flatMap((b, i) => [
      {
        path: `/${b.name}`,
        source: {
          backend: "stdio",
          command: [process.execPath, b.script, ...b.args],
          name: b.name,
          ...pinned(b),
        },
      },
      {
        path: `/${b.name}-http`,
        source: { backend: "http", url: http[i], name: `${b.name}-http`, ...pinned(b) },
      },
    ]),
  });
  const references = await Promise.all(
    SUITES.map(async (suite) => {
      const url = await serveOverHttp(REFERENCE[suite], []);
      return passing(await runConformance(url, suite));
    }),
  );
  SUITES.forEach((suite, i) => (direct[suite] = references[i]!));
}, 240_000);
afterAll(async () => {
  await broker?.close();
  for (const child of children) child.kill();
});

describe.each(SUITES)("the official conformance suite %s", (suite) => {
  it("the reference server of its revision passes most scenarios directly (the baseline)", () => {
    expect(direct[suite].length).toBeGreaterThanOrEqual(25);
  });

  it.each(BACKENDS.flatMap((b) => [`${b.name}`, `${b.name}-http`]))(
    "through the broker to the backend %s, every scenario the baseline passes",
    async (name) => {
      const through = passing(await runConformance(`${broker.url}/mcp/${name}`, suite));
      const expected =
        suite === "2026-07-28" && /^(only|both-pinned)2025/.test(name)
          ? direct[suite].filter((s) => THROUGH_A_2025_SESSION.includes(s))
          : direct[suite].filter((s) => s !== "dns-rebinding-protection");
      expect(expected.filter((s) => !through.includes(s))).toEqual([]);
      // The broker guards its own HTTP endpoints against DNS rebinding; the fixtures do not.
      expect(through).toContain("dns-rebinding-protection");
    },
    120_000,
  );
});

describe("the aggregated /mcp", () => {
  it.each([
    ["server-initialize", "2025-11-25"],
    ["ping", "2025-11-25"],
    ["tools-list", "2025-11-25"],
    ["dns-rebinding-protection", "2025-11-25"],
    ["server-sse-multiple-streams", "2025-11-25"],
    ["tools-list", "2026-07-28"],
    ["resources-list", "2026-07-28"],
    ["prompts-list", "2026-07-28"],
    ["caching", "2026-07-28"],
    ["http-header-validation", "2026-07-28"],
    ["sep-2164-resource-not-found", "2026-07-28"],
    ["dns-rebinding-protection", "2026-07-28"],
  ] as const)(
    "passes %s (%s)",
    async (scenario, suite) => {
      const result = await runConformance(`${broker.url}/mcp`, suite, scenario);
      expect(result.get(scenario)).toMatchObject({ failed: 0 });
    },
    60_000,
  );
});
