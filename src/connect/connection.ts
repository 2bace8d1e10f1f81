import { copyFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { applyEdits, modify, parse as parseJsonc, type ParseError } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import type { BrokerAddress, ClientEntry, ClientTarget, JsonEdit } from "./client-target.js";

/** What `connect` would do to one client's file. */
export interface Connection {
  readonly file: string;
  /** The part that reaches the broker, to show. */
  readonly snippet: string;
  /** The file as it would be after, its comments and the rest kept. */
  readonly after: string;
  /** Whether the file is there now (and so gets a backup). */
  readonly exists: boolean;
  readonly notes: readonly string[];
}

const FORMATTING = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } };

/** What reaching the broker takes in `client`'s file at `file`; refused (thrown) saying why. */
export async function planConnection(
  client: ClientTarget,
  broker: BrokerAddress,
  file: string,
): Promise<Connection> {
  const entry = client.entry(broker);
  if (typeof entry === "string") throw new Error(`${client.title}: ${entry}`);
  const before = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  const after =
    entry.format === "json"
      ? editJson(before, entry.edits, file)
      : addTomlTable(before, entry, file);
  return {
    file,
    snippet: snippetOf(entry),
    after,
    exists: before !== undefined,
    notes: client.notes?.(broker) ?? [],
  };
}

/** Writes the file, keeping what was there as `FILE.bak-<time>`; returns the backup's name. */
export function writeConnection(connection: Connection): Promise<string | undefined> {
  return replaceFile(connection.file, connection.after, connection.exists);
}

/**
 * Writes `text` as `file`, first copying what was there (`existed`) to
 * `FILE.bak-<time>`, whose name it returns.
 */
export async function replaceFile(
  file: string,
  text: string,
  existed: boolean,
): Promise<string | undefined> {
  await mkdir(dirname(file), { recursive: true });
  let backup: string | undefined;
  if (existed) {
    backup = `${file}.bak-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    await copyFile(file, backup);
  }
  // Written beside, then renamed over: a client reading it meanwhile sees one or the other.
  const next = `${file}.mcp-broker-${process.pid}`;
  await writeFile(next, text, { mode: 0o600 });
  await rename(next, file);
  return backup;
}

/**
 * A JSON (or JSONC) object's text with the edits made, its comments and
 * formatting kept; `before` undefined is an empty object. Refused when it
 * is not an object.
 */
export function editJson(
  before: string | undefined,
  edits: readonly JsonEdit[],
  file: string,
): string {
  let text = before ?? "{}\n";
  for (const edit of edits) {
    const errors: ParseError[] = [];
    const current: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
    if (
      errors.length > 0 ||
      current === null ||
      typeof current !== "object" ||
      Array.isArray(current)
    )
      throw new Error(`${file} is not a JSON object; fix it or give another --file`);
    let path = [...edit.path];
    let value = edit.value;
    let isArrayInsertion = false;
    if (edit.append) {
      const list = valueAt(current, edit.path);
      const id = (edit.value as { id?: unknown }).id;
      if (Array.isArray(list)) {
        if (id !== undefined && list.some((item) => (item as { id?: unknown } | null)?.id === id))
          continue;
        path = [...path, list.length];
        isArrayInsertion = true;
      } else value = [edit.value];
    }
    text = applyEdits(text, modify(text, path, value, { ...FORMATTING, isArrayInsertion }));
  }
  return text.endsWith("\n") ? text : `${text}\n`;
}

function addTomlTable(
  before: string | undefined,
  entry: Extract<ClientEntry, { format: "toml" }>,
  file: string,
): string {
  if (before === undefined) return entry.text;
  let parsed: unknown;
  try {
    parsed = parseToml(before);
  } catch (err) {
    throw new Error(
      `${file} is not valid TOML (${(err as Error).message.split("\n")[0]}); fix it first`,
      {
        cause: err,
      },
    );
  }
  if (valueAt(parsed, entry.table) !== undefined)
    throw new Error(
      `${file} has [${entry.table.join(".")}] already; remove it, or give another --name`,
    );
  // Appended as text: the user's file, its comments and order, stays as it was.
  return `${before}${before.endsWith("\n") || before === "" ? "" : "\n"}\n${entry.text}`;
}

function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

function snippetOf(entry: ClientEntry): string {
  if (entry.format === "toml") return entry.text;
  const shown: Record<string, unknown> = {};
  for (const edit of entry.edits) {
    let at = shown;
    for (const key of edit.path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[edit.path.at(-1)!] = edit.append ? [edit.value] : edit.value;
  }
  return JSON.stringify(shown, null, 2) + "\n";
}
