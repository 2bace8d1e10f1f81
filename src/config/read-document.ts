import { parse as parseJsonc, type ParseError } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { ConfigError } from "./errors.js";

/**
 * A config file's text as a value: TOML for a `.toml` file (Codex CLI's
 * config), else JSON, with the comments and trailing commas of JSONC
 * (VS Code's files, and anyone's) accepted. A broken file is refused saying
 * where.
 */
export function readDocument(text: string, file: string): unknown {
  if (file.endsWith(".toml")) {
    try {
      return parseToml(text);
    } catch (err) {
      throw new ConfigError(file, [`not valid TOML: ${(err as Error).message.split("\n")[0]}`]);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    const errors: ParseError[] = [];
    const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
    if (errors.length === 0) return value;
    throw new ConfigError(file, [`not valid JSON: ${(err as Error).message}`]);
  }
}
