import type { ToolDefinition } from "./definition.js";

/** Something in a tool's text that has no business there, where, and what it looked like. */
export interface Finding {
  readonly rule: SuspiciousRule;
  /** The field it was found in: `description`, or a JSON path into a schema. */
  readonly field: string;
  /** The text around it, invisible characters written as `\u{…}`, at most 160 characters. */
  readonly excerpt: string;
}

export type SuspiciousRule =
  | "invisible-characters"
  | "hidden-tags"
  | "override-instructions"
  | "conceal-from-user"
  | "secret-files"
  | "exfiltrate-secrets"
  | "call-other-tools";

/**
 * Characters a person does not see and a model reads: Unicode tags (the
 * "ASCII smuggling" block), zero-width spaces and non-joiners, word
 * joiners and invisible operators, bidirectional overrides and isolates,
 * a byte-order mark inside text, variation selectors past the emoji ones.
 * The zero-width joiner is left alone: emoji sequences are made of it.
 */
// Each character is matched alone, variation selectors included: that is the point.
const INVISIBLE =
  // eslint-disable-next-line no-misleading-character-class
  /[\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}\u200B\u200C\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/u;

/** Rules over visible text, each a pattern a tool's own documentation has no need of. */
const RULES: readonly { rule: SuspiciousRule; pattern: RegExp }[] = [
  // Markup that frames text as orders for the model: <IMPORTANT>, <system>, <instructions>.
  {
    rule: "hidden-tags",
    pattern:
      /<\s*\/?\s*(important|system|instructions?|secret|hidden|admin|assistant|prompt)\b[^>]{0,40}>/i,
  },
  {
    rule: "override-instructions",
    pattern:
      /\b(ignore|disregard|forget|override)\b[^.\n]{0,30}\b(previous|prior|above|earlier|all|other|any|system)\b[^.\n]{0,20}\b(instructions?|prompts?|rules|directions|guidelines)\b|\b(new|updated|real|actual|secret)\s+instructions\s*:|\byou are now\b/i,
  },
  {
    rule: "conceal-from-user",
    pattern:
      /\b(do not|don't|dont|never|without)\s+(\w+\s+){0,3}(tell|telling|inform|informing|mention|mentioning|reveal|revealing|notify|notifying|alert|alerting|show|showing)\b[^.\n]{0,20}\b(the\s+)?(user|human|them)\b|\b(user|human)\b[^.\n]{0,20}\b(must|should|need|may)\s+not\s+(know|see|notice|be told|find out)\b|\bkeep\s+(this|it|these)\s+(a\s+)?(secret|hidden|confidential)\b/i,
  },
  // Files that hold credentials: no tool's documentation needs to name them.
  {
    rule: "secret-files",
    pattern:
      /(~\/\.ssh\b|\.ssh\/|\bid_(rsa|ed25519|ecdsa|dsa)\b|\.aws\/credentials|\/etc\/shadow|\.npmrc\b|\.netrc\b|\.pgpass\b|\bmcp\.json\b|claude_desktop_config|\.cursor\/|\.config\/gcloud|\.kube\/config|\.docker\/config\.json)/i,
  },
  {
    rule: "exfiltrate-secrets",
    pattern:
      /\b(read|send|pass|include|upload|forward|attach|leak|exfiltrate|copy|append)\b[^.\n]{0,40}(\bcontents? of|\bprivate keys?|\bssh keys?|\bcredentials? files?|\.env\b|\benvironment variables|\bsecrets?)\b[^.\n]{0,60}\b(as|in|into|to|via|through|inside)\s+(the\s+)?(\w+\s+)?(parameter|argument|field|request|sidenote|note|body|url|message)\b/i,
  },
  {
    rule: "call-other-tools",
    pattern:
      /\b(you must|always|must (first|also|then)|be sure to|make sure to)\s+(first\s+)?(call|use|invoke|run|execute)\s+(the\s+)?(?!(this|that|same|each|every|a|an)\b)[`'"]?[\w.-]+[`'"]?\s+tool\b|\binstead of\b[^.\n]{0,30}\b(call|use|invoke)\s+(the\s+)?[`'"]?[\w.-]+[`'"]?\s+tool\b/i,
  },
];

/** Past this much text in one definition, the rest is not read (a definition that long is itself a finding). */
const MAX_CHARS = 256 * 1024;

/**
 * What a tool's definition says that a tool has no business saying: text
 * only a model would read (invisible characters), orders aimed at the model
 * (tags, "ignore previous instructions", "do not tell the user"), demands
 * to read secrets, and orders to call other tools. Every string of the
 * definition is read: name, title, description, and each key and string of
 * its schemas and annotations.
 */
export function suspiciousText(definition: ToolDefinition): Finding[] {
  const findings: Finding[] = [];
  const seen = new Set<SuspiciousRule>();
  for (const [field, text] of stringsOf(definition)) {
    const invisible = INVISIBLE.exec(text);
    if (invisible && !seen.has("invisible-characters")) {
      seen.add("invisible-characters");
      findings.push({
        rule: "invisible-characters",
        field,
        excerpt: excerpt(text, invisible.index),
      });
    }
    for (const { rule, pattern } of RULES) {
      if (seen.has(rule)) continue;
      const match = pattern.exec(text);
      if (!match) continue;
      seen.add(rule);
      findings.push({ rule, field, excerpt: excerpt(text, match.index) });
    }
  }
  return findings;
}

/** Every string of a definition, keys included, with where it is; at most MAX_CHARS in all. */
function* stringsOf(definition: ToolDefinition): Generator<[string, string]> {
  let budget = MAX_CHARS;
  const stack: [string, unknown][] = [["", definition]];
  while (stack.length > 0 && budget > 0) {
    const [at, value] = stack.pop()!;
    if (typeof value === "string") {
      budget -= value.length;
      yield [at, value.slice(0, budget + value.length)];
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([`${at}[${i}]`, value[i]]);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, inner] of Object.entries(value).reverse()) {
        const path = at === "" ? key : `${at}.${key}`;
        budget -= key.length;
        yield [`${path} (key)`, key];
        stack.push([path, inner]);
      }
    }
  }
}

function excerpt(text: string, at: number): string {
  const start = Math.max(0, at - 40);
  const shown = text.slice(start, start + 120);
  return (
    (start > 0 ? "…" : "") +
    shown.replace(INVISIBLE_ALL, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`) +
    (start + 120 < text.length ? "…" : "")
  );
}

// eslint-disable-next-line no-misleading-character-class
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, "gu");
