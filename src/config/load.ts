import { readFile } from "node:fs/promises";
import type { z } from "zod";
import type { Config } from "./schema.js";
import { ConfigError, jsonPath } from "./errors.js";
import { substituteEnv } from "./env.js";

/** The config's schema, with the `source` of every kind (sources/kinds.ts assembles it). */
export type ConfigSchemaOf = z.ZodType<Config>;

/** Parses, substitutes `${ENV}` and validates a config given as text. */
export function parseConfig(
  text: string,
  file: string,
  schema: ConfigSchemaOf,
  env: NodeJS.ProcessEnv,
): Config {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(file, [`not valid JSON: ${(err as Error).message}`]);
  }
  const problems: string[] = [];
  const substituted = substituteEnv(raw, env, problems);
  if (problems.length > 0) throw new ConfigError(file, problems);
  const result = schema.safeParse(substituted);
  if (!result.success) {
    throw new ConfigError(file, describeIssues(result.error.issues, []));
  }
  return result.data;
}

/** Why a config file cannot be read, for the codes a mistyped or misplaced file gives. */
const UNREADABLE: Readonly<Record<string, string>> = {
  ENOENT: "there is no such file",
  EACCES: "permission denied",
  EISDIR: "it is a folder, not a file",
  ENOTDIR: "a part of its path is not a folder",
};

/** Reads and validates a config file; every failure is a ConfigError naming the file. */
export async function loadConfig(
  file: string,
  schema: ConfigSchemaOf,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Config> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === undefined ? (err as Error).message : `${UNREADABLE[code] ?? code} (${code})`;
    throw new ConfigError(file, [`cannot read the file: ${why}`]);
  }
  return parseConfig(text, file, schema, env);
}

/**
 * Zod's issues as `path: message` lines. For a union (a tree given as a list or
 * as one root node) the branch whose type matched explains the problem, not the
 * union's generic "Invalid input". A source's union has no branches to show:
 * its own message names the backends.
 */
function describeIssues(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[]): string[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const typed = issue.errors.find(
        (branch) => !branch.some((i) => i.code === "invalid_type" && i.path.length === 0),
      );
      if (typed) return describeIssues(typed, path);
      return [`${jsonPath(path)}: expected a list of nodes or one root node object`];
    }
    return [`${jsonPath(path)}: ${issue.message}`];
  });
}
