/** A config that cannot be used; each problem names its JSON path and what was expected. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";

  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}: invalid config\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** `$.tree[0].source.command` from zod's or our own path segments. */
export function jsonPath(segments: readonly PropertyKey[]): string {
  let out = "$";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (typeof s === "string" && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(s)) out += `.${s}`;
    else out += `[${JSON.stringify(String(s))}]`;
  }
  return out;
}
