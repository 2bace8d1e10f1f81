import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { translateClientConfig } from "./client-configs/index.js";
import { ConfigError } from "./errors.js";
import { readConfigText } from "./load.js";
import { readDocument } from "./read-document.js";

/**
 * A client's list of servers as the broker's own config, in JSON: what
 * `mcp-broker import` writes, for a user to go on from. `${VAR}` references
 * stay references (the file holds no secret the client's did not).
 */
export async function importClientConfig(
  file: string,
): Promise<{ json: string; warnings: readonly string[] }> {
  const text = await readConfigText(file);
  const translated = translateClientConfig(readDocument(text, file), resolve(file));
  if (!translated) throw new ConfigError(file, ["$: already a broker config (it has a tree)"]);
  return { json: JSON.stringify(translated.config, null, 2) + "\n", warnings: translated.warnings };
}

/** Writes `json` to `out`, never over a file that is there. */
export async function writeNewFile(out: string, json: string): Promise<void> {
  try {
    await writeFile(out, json, { flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST")
      throw new Error(`${out} is there already; give another --out, or remove it first`, {
        cause: err,
      });
    throw err;
  }
}
