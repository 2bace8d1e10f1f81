import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { WIT_DIR } from "../../src/sources/wasm/build-component.js";
import { runCli } from "./cli.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CACHE = join(ROOT, "node_modules", ".cache", "mcp-broker-test", "wasm");

export const ROUTERS = {
  everything: join(ROOT, "test/fixtures/wasm/everything-router.js"),
  faulty: join(ROOT, "test/fixtures/wasm/faulty-router.js"),
  files: join(ROOT, "test/fixtures/wasm/files-router.js"),
} as const;

/** Everything a build depends on: the router, the WIT and the toolchain's version. */
function buildKey(router: string): string {
  const hash = createHash("sha256").update(readFileSync(router));
  const wit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) wit(path);
      else hash.update(entry.name).update(readFileSync(path));
    }
  };
  wit(WIT_DIR);
  hash.update(
    readFileSync(join(ROOT, "node_modules/@bytecodealliance/componentize-js/package.json")),
  );
  return hash.digest("hex").slice(0, 16);
}

const building = new Map<string, Promise<string>>();

/**
 * The component built from one of the test routers with componentize-js:
 * built once, then kept under node_modules/.cache until a source changes.
 */
export function testComponent(name: keyof typeof ROUTERS): Promise<string> {
  const router = ROUTERS[name];
  const target = join(CACHE, `${name}-${buildKey(router)}.wasm`);
  if (existsSync(target)) return Promise.resolve(target);
  let pending = building.get(target);
  if (!pending) {
    pending = (async () => {
      await mkdir(CACHE, { recursive: true });
      // Test files run in parallel processes: one builds, the others wait for it.
      const lock = `${target}.lock`;
      try {
        await mkdir(lock);
      } catch {
        for (let waited = 0; !existsSync(target); waited += 500) {
          if (waited > 180_000) throw new Error(`${lock} held for 3 minutes; remove it`);
          await delay(500);
        }
        return target;
      }
      try {
        const partial = `${target}.${process.pid}.partial`;
        // As users build them, and apart from this process, whose V8 settings
        // (the broker's memory ceiling) would not be the CLI's.
        const built = await runCli("wasm", "build", router, "--out", partial);
        if (built.code !== 0) throw new Error(`building ${router} failed: ${built.stderr}`);
        await rename(partial, target);
        return target;
      } finally {
        await rm(lock, { recursive: true, force: true });
      }
    })();
    building.set(target, pending);
  }
  return pending;
}
