import { createHash } from "node:crypto";

/** MCP's tool name alphabet (2025-11-25: "SHOULD only contain" these), 1 to 128 of them. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** Characters no name shown to a person or a model should hold: controls, and formatting (bidi overrides, zero-width). */
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;
/** The longest head of an escaped name kept before its hash. */
const ESCAPED_HEAD = 64;

/**
 * The path segment a backend's tool is mounted at: its name, where the name
 * is one of MCP's (letters, digits, `_ . -`; not `.` or `..`); else the name
 * escaped (each other character `_`) and made unique by a hash of it. A name
 * can then neither climb the tree (`../x`), reach under another node (`a/b`),
 * vanish (`""`) nor pass for another (a right-to-left override, a letter of
 * another script that looks like a Latin one): what is escaped looks escaped.
 */
export function leafSegment(name: string): { segment: string; escaped: boolean } {
  if (TOOL_NAME.test(name) && name !== "." && name !== "..")
    return { segment: name, escaped: false };
  const head = [...name]
    .map((c) => (/[A-Za-z0-9_.-]/.test(c) ? c : "_"))
    .join("")
    .slice(0, ESCAPED_HEAD)
    .replace(/^\.+/, "_");
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return { segment: `${head}-${hash}`, escaped: true };
}

/** Whether a name holds characters that display as nothing, or rearrange what follows. */
export function hasInvisibleCharacters(name: string): boolean {
  return INVISIBLE.test(name);
}
