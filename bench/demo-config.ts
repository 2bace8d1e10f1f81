import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { whyNoSandbox } from "../src/app/host-sandbox.js";
import { withoutSandboxes } from "../src/app/demo.js";
import { loadConfig } from "../src/config/load.js";
import type { Config } from "../src/config/schema.js";
import { ConfigSchema } from "../src/sources/kinds.js";

const examples = fileURLToPath(new URL("../examples", import.meta.url));

/**
 * The demo config as `npm start` reads it, its relative paths resolved from
 * examples/: a benchmark writes it elsewhere, where they would mean nothing.
 * What loading adds that a config file may not say (the pins' config folder,
 * which is the folder of the file it is read from) is left out. Where this
 * host cannot sandbox the demo's servers, they run without, as `npm start`
 * runs them, and the report says so: their figures are not those of
 * sandboxed servers.
 */
export async function demoConfig(): Promise<Config> {
  const config = await loadConfig(join(examples, "demo.json"), ConfigSchema);
  const { mode, store } = config.pinning;
  const portable = { ...config, pinning: { mode, store } } as Config;
  const noSandbox = await whyNoSandbox();
  if (noSandbox === undefined) return portable;
  console.log(`\n> The demo's MCP servers ran without their sandboxes here: ${noSandbox}.\n`);
  return withoutSandboxes(portable);
}
