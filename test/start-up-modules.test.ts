import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const fixture = fileURLToPath(new URL("fixtures/loaded-packages.mjs", import.meta.url));

/** The npm packages that loading `file` of the program loads. */
function packagesLoadedBy(file: string): string[] {
  const out = execFileSync(process.execPath, ["--import", "tsx", fixture, file], {
    cwd: root,
    encoding: "utf8",
  });
  return out.split("\n").filter(Boolean);
}

/**
 * Loading the program is much of a start: what serves one source kind or one
 * option is loaded when a config uses it (docs/DECISIONS.md, "What a start
 * does not need is loaded when it is needed").
 */
const LATER = ["kysely", "mysql2", "pg", "ioredis", "jose", "@modelcontextprotocol/sdk"];

describe("what a start loads", () => {
  it("serving HTTP loads no database layer, Redis client, JWT library or 1.x SDK", () => {
    const loaded = packagesLoadedBy("src/app/serve.ts");
    expect(loaded).toContain("hono");
    for (const later of LATER) expect(loaded).not.toContain(later);
  });

  it("the demo's set-up loads none of them either, its database being written already", () => {
    const loaded = packagesLoadedBy("src/app/demo.ts");
    for (const later of LATER) expect(loaded).not.toContain(later);
  });
});
