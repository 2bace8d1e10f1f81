/** The longest text given where another type was expected that is read for what it holds. */
const LONGEST_READ = 200;

/**
 * What an argument of the wrong JSON type was, in words, and where it is text
 * holding a value of the type expected (`"2"` for a number, `"[1, 2]"` for an
 * array: a common slip of models), how to send it instead.
 *
 * @example
 * `argument 'a' must be number${typeMismatch("number", "2")}`
 * // ", not the string \"2\" (send 2, without quotes)"
 */
export function typeMismatch(expected: string, value: unknown): string {
  const held = typeof value === "string" ? heldValue(value, expected.split(",")) : undefined;
  const hint = held === undefined ? "" : ` (send ${held}, without quotes)`;
  return `, not ${described(value)}${hint}`;
}

function described(value: unknown): string {
  if (typeof value === "string")
    return `the string ${shortened(JSON.stringify(value.slice(0, 41)))}`;
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** The JSON a text holds, shortened, where its type is one of `types`. */
function heldValue(text: string, types: readonly string[]): string | undefined {
  if (text.length > LONGEST_READ) return undefined;
  let held: unknown;
  try {
    held = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!types.some((type) => isOfType(held, type))) return undefined;
  return shortened(JSON.stringify(held));
}

/** JSON cut to a length a message can carry (escapes can make a short text long). */
function shortened(json: string): string {
  return json.length > 42 ? `${json.slice(0, 40)}…` : json;
}

function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case "integer":
      return Number.isInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "null":
      return value === null;
    default:
      return typeof value === type;
  }
}
