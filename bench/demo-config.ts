import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config/load.js";
import type { Config } from "../src/config/schema.js";
import { ConfigSchema } from "../src/sources/kinds.js";

const examples = fileURLToPath(new URL("../examples", import.meta.url));

/**
 * The demo config as `npm start` reads it, its relative paths resolved from
 * examples/: a benchmark writes it elsewhere, where they would mean nothing.
 */
export function demoConfig(): Promise<Config> {
  return loadConfig(join(examples, "demo.json"), ConfigSchema);
}
