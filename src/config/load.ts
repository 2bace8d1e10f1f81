import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { z } from "zod";
import { KEY_MEANT, keyMeant } from "../contract/key-meant.js";
import { KeyPlaces } from "./key-places.js";
import type { Config } from "./schema.js";
import { ConfigError, jsonPath } from "./errors.js";
import { substituteEnv } from "./env.js";
import { inConfigFolder } from "./config-folder.js";
import { translateClientConfig, type TranslatedConfig } from "./client-configs/index.js";
import { readDocument } from "./read-document.js";

/** The config's schema, with the `source` of every kind (sources/kinds.ts assembles it). */
export type ConfigSchemaOf = z.ZodType<Config>;

/** Says what a client's config file held that the broker does not carry over. */
export type ConfigWarn = (message: string) => void;

/**
 * Parses, translates a client's list of servers into the broker's format,
 * substitutes `${ENV}` and validates a config given as text.
 */
export function parseConfig(
  text: string,
  file: string,
  schema: ConfigSchemaOf,
  env: NodeJS.ProcessEnv,
  warn?: ConfigWarn,
): Config {
  const doc = readDocument(text, file);
  const translated = translateClientConfig(doc, resolve(file));
  for (const warning of translated?.warnings ?? []) warn?.(`${file}: ${warning}`);
  const problems: string[] = [];
  const substituted = substituteEnv(translated?.config ?? doc, env, problems);
  if (problems.length === 0) {
    const result = schema.safeParse(substituted, KEY_MEANT);
    if (result.success) return result.data;
    let places: KeyPlaces | undefined;
    const placesOf = () => (places ??= new KeyPlaces(schema));
    problems.push(...describeIssues(result.error.issues, [], substituted, placesOf));
  }
  throw new ConfigError(file, translated ? problems.map(inServerTerms(translated)) : problems);
}

/** A problem of a translated config, `$.tree[2]…`, named by the server it came from. */
function inServerTerms(translated: TranslatedConfig): (problem: string) => string {
  return (problem) =>
    problem.replace(/^\$\.tree\[(\d+)\]/, (at, index: string) => {
      const path = translated.config.tree[Number(index)]?.path;
      return typeof path === "string" ? `server "${path.slice(1)}" (read as ${at})` : at;
    });
}

/** Why a config file cannot be read, for the codes a mistyped or misplaced file gives. */
const UNREADABLE: Readonly<Record<string, string>> = {
  ENOENT: "there is no such file",
  EACCES: "permission denied",
  EISDIR: "it is a folder, not a file",
  ENOTDIR: "a part of its path is not a folder",
};

/** A config file's text; a file that cannot be read is a ConfigError saying why in words. */
export async function readConfigText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === undefined ? (err as Error).message : `${UNREADABLE[code] ?? code} (${code})`;
    throw new ConfigError(file, [`cannot read the file: ${why}`]);
  }
}

/**
 * Reads and validates a config file; every failure is a ConfigError naming
 * the file. Its relative paths are resolved against its folder.
 */
export async function loadConfig(
  file: string,
  schema: ConfigSchemaOf,
  options: { env?: NodeJS.ProcessEnv; warn?: ConfigWarn } = {},
): Promise<Config> {
  const text = await readConfigText(file);
  return inConfigFolder(dirname(resolve(file)), () =>
    parseConfig(text, file, schema, options.env ?? process.env, options.warn),
  );
}

/**
 * Zod's issues as `path: message` lines. For a union (a tree given as a list or
 * as one root node, a command given as a line or as a list) the branch whose
 * type matched explains the problem, not the union's generic "Invalid input";
 * where none matched, what each branch expects. A source's union has no
 * branches to show: its own message names the backends.
 */
function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: PropertyKey[],
  input: unknown,
  places: () => KeyPlaces,
): string[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys")
      return [`${jsonPath(path)}: ${unrecognizedKeys(issue.keys, path, input, places())}`];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const typed = issue.errors.find(
        (branch) => !branch.some((i) => i.code === "invalid_type" && i.path.length === 0),
      );
      if (typed) return describeIssues(typed, path, input, places);
      if (path.length === 1 && path[0] === "tree")
        return [`${jsonPath(path)}: expected a list of nodes or one root node object`];
      const expected = new Set(
        issue.errors.flatMap((branch) =>
          branch.flatMap((i) =>
            i.code === "invalid_type" && i.path.length === 0 ? [i.expected] : [],
          ),
        ),
      );
      const missing = valueAt(input, path) === undefined ? "missing: " : "";
      return [`${jsonPath(path)}: ${missing}expected ${[...expected].join(" or ")}`];
    }
    return [`${jsonPath(path)}: ${issue.message}`];
  });
}

/** How far, in steps up and down the config, a key's place outweighs a missing key it may be. */
const NEXT_DOOR = 2;

/**
 * Keys an object does not take, each with the key it likely stands for
 * (a typo, or the one key it needs and lacks) or, written in the wrong
 * object, where it goes.
 */
function unrecognizedKeys(
  keys: readonly string[],
  path: readonly PropertyKey[],
  input: unknown,
  places: KeyPlaces,
): string {
  const given = (valueAt(input, path) ?? {}) as object;
  const known = places.keysAt(path, given);
  const lacking = places.lackingAt(path, given);
  // One key too many and one too few: most likely the same key under another name (`cmd`
  // for a missing `command`, rather than a typo of `cwd`; a node's `name` for its `path`,
  // rather than its source's name), unless the key belongs next door (a `limits` beside).
  const rename = keys.length === 1 && lacking.length === 1 ? lacking[0] : undefined;
  const meant = (key: string): string =>
    rename === undefined
      ? keyMeant(key, known, given) || places.elsewhere(key, path)
      : keyMeant(key, [rename], given) ||
        places.elsewhere(key, path, { maxSteps: NEXT_DOOR, outside: true }) ||
        ` (did you mean ${JSON.stringify(rename)}, the one key this object needs and lacks?)`;
  const words = keys.map((key) => `${JSON.stringify(key)}${meant(key)}`);
  return `Unrecognized key${keys.length === 1 ? "" : "s"}: ${words.join(", ")}`;
}

/** The value at `path` of a parsed JSON document, if there is one. */
function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let value = document;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
