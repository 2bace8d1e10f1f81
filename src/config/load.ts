import { readFile } from "node:fs/promises";
import { ConfigSchema, type Config } from "./schema.js";
import { ConfigError, jsonPath } from "./errors.js";
import { substituteEnv } from "./env.js";

/** Parses, substitutes `${ENV}` and validates a config given as text. */
export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv): Config {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(file, [`not valid JSON: ${(err as Error).message}`]);
  }
  const problems: string[] = [];
  const substituted = substituteEnv(raw, env, problems);
  if (problems.length > 0) throw new ConfigError(file, problems);
  const result = ConfigSchema.safeParse(substituted);
  if (!result.success) {
    throw new ConfigError(
      file,
      result.error.issues.map((issue) => `${jsonPath(issue.path)}: ${issue.message}`),
    );
  }
  return result.data;
}

/** Reads and validates a config file; every failure is a ConfigError naming the file. */
export async function loadConfig(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Config> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new ConfigError(file, [
      `cannot read the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    ]);
  }
  return parseConfig(text, file, env);
}
