export const FORMATS = ["pdf", "docx", "txt", "html"] as const;
export type DocumentFormat = (typeof FORMATS)[number];

/**
 * A document's format from its bytes: PDF by its signature, DOCX as a zip
 * holding `word/`, HTML by its first tag, text when it is UTF-8 without
 * control characters; undefined when none fits.
 */
export function detectFormat(bytes: Buffer): DocumentFormat | undefined {
  if (bytes.subarray(0, 5).toString("latin1") === "%PDF-") return "pdf";
  if (bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) {
    return bytes.includes("word/") ? "docx" : undefined;
  }
  const head = bytes
    .subarray(0, 2048)
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  if (/^<(!doctype html|html|head|body|meta|title|p|div|h[1-6])\b/i.test(head)) return "html";
  const text = bytes.toString("utf8");
  // A replacement character, or a control character that is not whitespace, means binary.
  if (!/\uFFFD|[^\P{Cc}\s]/u.test(text)) return "txt";
  return undefined;
}
