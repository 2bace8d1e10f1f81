import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE, startBroker, type TestBroker } from "../helpers/broker.js";
import {
  passing,
  runConformance,
  type Requirements,
  type ScenarioResult,
} from "../helpers/conformance.js";

/** The reference server of each revision: SDK 1.x for 2025-11-25, SDK 2.x for 2026-07-28. */
const REFERENCE: Record<Requirements, string> = {
  "2025-11-25": FIXTURE.replace("fixture-server.mjs", "conformance-server.mjs"),
  "2026-07-28": FIXTURE.replace("fixture-server.mjs", "conformance-server-2026.mjs"),
};
const NAME: Record<Requirements, string> = { "2025-11-25": "c25", "2026-07-28": "c26" };

const children: ChildProcess[] = [];
const urls = {} as Record<Requirements, string>;
const direct = {} as Record<Requirements, Map<string, ScenarioResult>>;
let broker: TestBroker;

async function serveOverHttp(script: string): Promise<string> {
  const child = spawn(process.execPath, [script, "--http", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const port = await new Promise<number>((resolve) =>
    child.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
  );
  return `http://127.0.0.1:${port}/mcp`;
}

beforeAll(async () => {
  for (const revision of Object.keys(REFERENCE) as Requirements[])
    urls[revision] = await serveOverHttp(REFERENCE[revision]);
  // Each reference server mounted twice: as a stdio backend and as an HTTP one.
  broker = await startBroker({
    registry: { predefined: false },
    tree: (Object.keys(REFERENCE) as Requirements[]).flatMap((revision) => [
      {
        path: `/${NAME[revision]}`,
        source: {
          backend: "stdio",
          command: [process.execPath, REFERENCE[revision]],
          name: NAME[revision],
        },
      },
      {
        path: `/${NAME[revision]}h`,
        source: { backend: "http", url: urls[revision], name: `${NAME[revision]}-http` },
      },
    ]),
  });
  const [a, b] = await Promise.all(
    (["2025-11-25", "2026-07-28"] as const).map((requirements) =>
      runConformance(urls[requirements], { requirements }),
    ),
  );
  direct["2025-11-25"] = a!;
  direct["2026-07-28"] = b!;
}, 240_000);
afterAll(async () => {
  await broker?.close();
  for (const child of children) child.kill();
});

describe.each(["2025-11-25", "2026-07-28"] as const)(
  "the official conformance suite, revision %s",
  (revision) => {
    it("the reference server passes most scenarios when run directly (the baseline)", () => {
      expect(passing(direct[revision]).length).toBeGreaterThanOrEqual(25);
    });

    it.each([
      ["a stdio backend", ""],
      ["an HTTP backend", "-http"],
    ])(
      "every scenario the reference server passes directly passes through the broker, for %s",
      async (_what, suffix) => {
        const through = await runConformance(`${broker.url}/mcp/${NAME[revision]}${suffix}`, {
          requirements: revision,
        });
        const missing = passing(direct[revision]).filter(
          (name) => !passing(through).includes(name),
        );
        expect(missing).toEqual([]);
        // The broker guards its own HTTP endpoints against DNS rebinding; the fixtures do not.
        expect(through.get("dns-rebinding-protection")).toMatchObject({ failed: 0 });
      },
      240_000,
    );
  },
);

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
    async (scenario, requirements) => {
      const result = await runConformance(`${broker.url}/mcp`, { scenario, requirements });
      expect(result.get(scenario)).toMatchObject({ failed: 0 });
    },
    60_000,
  );
});
