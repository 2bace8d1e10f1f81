import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config/load.js";
import type { Config } from "../src/config/schema.js";
import { ConfigSchema } from "../src/sources/kinds.js";

const examples = fileURLToPath(new URL("../examples", import.meta.url));

/**
 * The demo config as `npm start` reads it, its relative paths resolved from
 * examples/: a benchmark writes it elsewhere, where they would mean nothing.
 * What loading adds that a config file may not say (the pins' config folder,
 * which is the folder of the file it is read from) is left out.
 */
export async function demoConfig(): Promise<Config> {
  const config = await loadConfig(join(examples, "demo.json"), ConfigSchema);
  const { mode, store } = config.pinning;
  return { ...config, pinning: { mode, store } } as Config;
}
