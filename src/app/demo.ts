import { existsSync } from "node:fs";
import { access, constants, mkdir, rename, rm } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { NodeConfig, Config } from "../config/schema.js";
import { cacheFolder } from "../contract/cache-folder.js";
import type { Logger } from "../contract/log.js";
import { whyNoSandbox } from "./host-sandbox.js";

/** The package's folder, installed or checked out: examples/ is there. */
const PACKAGE = fileURLToPath(new URL("../..", import.meta.url));
const EXAMPLES = join(PACKAGE, "examples");
const DEMO_DOCUMENTS = 500;

/** The demo, ready to serve. */
export interface Demo {
  readonly configFile: string;
  /** The demo's config as this host can run it (see `prepareDemo`). */
  readonly configure: (config: Config, log: Logger) => Config;
}

/**
 * The demo's config, ready to serve from wherever the package is: its CMS
 * database written once (beside the config in a checkout, in the user's
 * cache where the package's folder is not writable) and named by
 * `MCP_BROKER_DEMO_CMS`, and the demo servers' programs, which the package
 * depends on, on `PATH` as `npm start` has them, with this Node.js.
 *
 * The demo's MCP servers ask for sandboxes. Where this host cannot make one
 * (no bubblewrap, as on macOS; a user who may not create cgroups; a
 * container without namespaces), they run without, as an MCP client would
 * run them, and the log says so and why: a first run shows the whole demo.
 * Only the demo does this: a config's sandbox is never left out.
 */
export async function prepareDemo(): Promise<Demo> {
  const [database, noSandbox] = await Promise.all([
    process.env.MCP_BROKER_DEMO_CMS ?? demoDatabase(),
    whyNoSandbox(),
  ]);
  process.env.MCP_BROKER_DEMO_CMS = database;
  const bins: string[] = [];
  for (let dir = PACKAGE; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", ".bin"))) bins.push(join(dir, "node_modules", ".bin"));
    if (dirname(dir) === dir) break;
  }
  // The demo's servers run on this Node.js, whatever the PATH of the client that started it.
  process.env.PATH = [...bins, dirname(process.execPath), process.env.PATH].join(delimiter);
  return {
    configFile: join(EXAMPLES, "demo.json"),
    configure: (config, log) => {
      if (noSandbox === undefined) return config;
      log.warn(
        { reason: noSandbox },
        "this host cannot sandbox the demo's MCP servers: they run without their sandboxes",
      );
      return withoutSandboxes(config);
    },
  };
}

/** `config` with no sandbox asked for anywhere: not by a source, not by default. */
export function withoutSandboxes(config: Config): Config {
  const { sandbox: _default, ...rest } = config;
  const strip = (node: NodeConfig): NodeConfig => {
    const { children, source } = node;
    const stripped: NodeConfig = { ...node };
    if (children) stripped.children = children.map(strip);
    if (source && "sandbox" in source) {
      const { sandbox: _own, ...unsandboxed } = source as typeof source & { sandbox?: unknown };
      stripped.source = unsandboxed;
    }
    return stripped;
  };
  return {
    ...rest,
    tree: Array.isArray(config.tree) ? config.tree.map(strip) : strip(config.tree),
  };
}

async function demoDatabase(): Promise<string> {
  const beside = join(EXAMPLES, "demo-cms.sqlite");
  if (existsSync(beside)) return beside;
  const writable = await access(EXAMPLES, constants.W_OK).then(
    () => true,
    () => false,
  );
  const file = writable ? beside : join(cacheFolder(), "demo-cms.sqlite");
  if (existsSync(file)) return file;
  await mkdir(dirname(file), { recursive: true });
  // Written aside, then renamed: a demo started meanwhile never opens half a database.
  const partial = `${file}.${process.pid}.partial`;
  const { generateDemo } = await import("../toolsets/emcp/demo/generate.js");
  const { openDatabase } = await import("../toolsets/emcp/open-database.js");
  const opened = openDatabase(`sqlite:${partial}`);
  try {
    await generateDemo(opened, "evo_", DEMO_DOCUMENTS);
  } finally {
    await opened.db.destroy();
  }
  await rename(partial, file).catch(async (err: unknown) => {
    await rm(partial, { force: true });
    throw err;
  });
  return file;
}
