import { existsSync } from "node:fs";
import { access, constants, mkdir, rename, rm } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheFolder } from "../contract/cache-folder.js";
import { generateDemo } from "../toolsets/emcp/demo/generate.js";
import { openDatabase } from "../toolsets/emcp/open-database.js";

/** The package's folder, installed or checked out: examples/ is there. */
const PACKAGE = fileURLToPath(new URL("../..", import.meta.url));
const EXAMPLES = join(PACKAGE, "examples");
const DEMO_DOCUMENTS = 500;

/**
 * The demo's config, ready to serve from wherever the package is: its CMS
 * database written once (beside the config in a checkout, in the user's
 * cache where the package's folder is not writable) and named by
 * `MCP_BROKER_DEMO_CMS`, and the demo servers' programs, which the package
 * depends on, on `PATH` as `npm start` has them.
 */
export async function prepareDemo(): Promise<string> {
  process.env.MCP_BROKER_DEMO_CMS ??= await demoDatabase();
  const bins: string[] = [];
  for (let dir = PACKAGE; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", ".bin"))) bins.push(join(dir, "node_modules", ".bin"));
    if (dirname(dir) === dir) break;
  }
  process.env.PATH = [...bins, process.env.PATH].join(delimiter);
  return join(EXAMPLES, "demo.json");
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
