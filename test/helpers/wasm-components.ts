import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildComponent, WIT_DIR } from "../../src/sources/wasm/build-component.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CACHE = join(ROOT, "node_modules", ".cache", "mcp-broker-test", "wasm");

export const ROUTERS = {
  everything: join(ROOT, "test/fixtures/wasm/everything-router.js"),
  faulty: join(ROOT, "test/fixtures/wasm/faulty-router.js"),
  files: join(ROOT, "test/fixtures/wasm/files-router.js"),
  example: join(ROOT, "examples/wasm/router.js"),
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
      const partial = `${target}.${process.pid}.partial`;
      await buildComponent(router, partial);
      await rename(partial, target);
      return target;
    })();
    building.set(target, pending);
  }
  return pending;
}
