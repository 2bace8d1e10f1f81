/**
 * `${NAME}` substitution in every string of a parsed config. `${NAME:-default}`
 * gives a fallback and `$${` is a literal `${`. All missing variables are
 * reported at once, each with the JSON path where it was used.
 */
import { jsonPath } from "./errors.js";

const REFERENCE = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

/**
 * Text that substitution leaves as it is: every `${` written `$${`. For values
 * read from elsewhere (another client's file, a registry), which name no
 * variable of the broker's.
 */
export function literalText(text: string): string {
  // A function, not a string: in a replacement string "$$" means one "$".
  return text.replaceAll("${", () => "$${");
}

export function substituteEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  problems: string[],
  path: PropertyKey[] = [],
): unknown {
  if (typeof value === "string") return substituteString(value, env, problems, path);
  if (Array.isArray(value)) {
    return value.map((item, i) => substituteEnv(item, env, problems, [...path, i]));
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = substituteEnv(item, env, problems, [...path, key]);
    }
    return out;
  }
  return value;
}

function substituteString(
  text: string,
  env: NodeJS.ProcessEnv,
  problems: string[],
  path: PropertyKey[],
): string {
  return text.replace(REFERENCE, (match: string, inner: string | undefined) => {
    if (match === "$${") return "${";
    const parsed = inner === undefined ? null : NAME.exec(inner);
    if (!parsed) {
      problems.push(
        `${jsonPath(path)}: malformed variable reference "${match}"; write \${NAME} or \${NAME:-default}, or $\${ for a literal`,
      );
      return match;
    }
    const [, name, fallback] = parsed as unknown as [string, string, string | undefined];
    const found = env[name];
    if (found !== undefined) return found;
    if (fallback !== undefined) return fallback;
    problems.push(`${jsonPath(path)}: environment variable ${name} is not set`);
    return match;
  });
}
