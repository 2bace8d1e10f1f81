import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where npm packages the tests run are installed, once per machine, outside any clone. */
const CACHE = join(homedir(), ".cache", "mcp-broker-tests", "npm");

/**
 * The folder npm packages are installed in for a test: the clients people
 * use, installed as a user would (`npm install`), pinned to the versions
 * given, once per machine. Undefined when npm cannot install them, so that
 * outside CI a test says it skipped and why; in CI that fails the test.
 */
export function npmPackages(...specs: string[]): string | undefined {
  const prefix = join(CACHE, specs.join("+").replace(/[^A-Za-z0-9@.+_-]/g, "_"));
  const marker = join(prefix, "node_modules", ".installed");
  if (existsSync(marker)) return prefix;
  mkdirSync(prefix, { recursive: true });
  const installed = spawnSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--no-save", "--prefix", prefix, ...specs],
    { stdio: "ignore", timeout: 900_000 },
  );
  if (installed.status !== 0) {
    if (process.env.CI === "true") throw new Error(`npm could not install ${specs.join(" ")}`);
    console.warn(`skipped: npm could not install ${specs.join(" ")}`);
    return undefined;
  }
  writeFileSync(marker, specs.join("\n"));
  return prefix;
}

/** A program an installed package provides. */
export const npmBin = (prefix: string, name: string) => join(prefix, "node_modules", ".bin", name);

/** An installed package's module, to import from a test. */
export function npmModule(prefix: string, name: string): string {
  return createRequire(join(prefix, "package.json")).resolve(name);
}
