import { unzipSync } from "fflate";
import { BrokerError } from "../../contract/errors.js";
import type { DocumentFormat } from "./detect-format.js";
import { readableHtml } from "./readable-html.js";

export interface ExtractedText {
  readonly text: string;
  readonly title?: string | undefined;
  readonly pages?: number | undefined;
}

/** What a document may cost to read, checked before its parser sees it. */
export interface ReadLimits {
  /** A PDF of more pages is refused once its page count is read. */
  readonly maxPages: number;
  /** A DOCX whose XML parts unpack to more bytes (as its zip directory says) is refused. */
  readonly maxUnzippedBytes: number;
}

/** The text of a document in a known format. */
export async function extractText(
  bytes: Uint8Array,
  format: DocumentFormat,
  limits: ReadLimits,
): Promise<ExtractedText> {
  try {
    switch (format) {
      case "pdf": {
        const { extractText: extractPdfText, getDocumentProxy } = await import("unpdf");
        // A plain copy: pdf.js refuses a Buffer, and may detach what it is given.
        const pdf = await getDocumentProxy(new Uint8Array(bytes));
        if (pdf.numPages > limits.maxPages) {
          throw new BrokerError(
            "invalid_params",
            `the PDF has ${pdf.numPages} pages; at most ${limits.maxPages} are read (toolsets.documents.max_pages)`,
            { pages: pdf.numPages, max_pages: limits.maxPages },
          );
        }
        const { totalPages, text } = await extractPdfText(pdf, { mergePages: true });
        return { text: tidy(text), pages: totalPages };
      }
      case "docx": {
        checkUnzippedSize(bytes, limits.maxUnzippedBytes);
        // Loaded on first use: a process that never reads a DOCX does not pay for it.
        const { default: mammoth } = await import("mammoth");
        const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        return { text: tidy((await mammoth.extractRawText({ buffer })).value) };
      }
      case "html":
      case "txt":
        return await markupText(bytes, format);
    }
  } catch (err) {
    if (err instanceof BrokerError) throw err;
    throw new BrokerError(
      "invalid_params",
      `the document could not be read as ${format}: ${(err as Error).message}`,
    );
  }
}

/**
 * The text of an HTML page or a text file: linear in its length whatever
 * its shape, so it needs no limits of its own and may run in the broker (the
 * search index reads its folders with it).
 */
export async function markupText(
  bytes: Uint8Array,
  format: "html" | "txt",
): Promise<ExtractedText> {
  const content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (format === "txt") return { text: tidy(content.replace(/^\uFEFF/, "")) };
  const { text, title } = await readableHtml(content);
  return { text: tidy(text), title };
}

/**
 * Refuses a DOCX whose XML parts would unpack to more than `max` bytes, from
 * the sizes its zip directory declares, before anything is unpacked: a DOCX
 * of a megabyte can hold gigabytes of XML, and the parser needs some thirty
 * times the XML's size in memory. Pictures are not parsed and do not count.
 * A zip that lies about its sizes is stopped by its process's memory limit
 * instead.
 */
function checkUnzippedSize(bytes: Uint8Array, max: number): void {
  let total = 0;
  unzipSync(bytes, {
    filter(entry) {
      if (/\.(xml|rels)$/i.test(entry.name)) total += entry.originalSize;
      return false;
    },
  });
  if (total > max) {
    throw new BrokerError(
      "invalid_params",
      `the DOCX's XML unpacks to ${total} bytes; at most ${max} are read (toolsets.documents.max_unzipped_mb)`,
      { unzipped_bytes: total, max_unzipped_bytes: max },
    );
  }
}

/** Spaces collapsed within lines, at most one blank line between paragraphs. */
function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/[ \t\u00A0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
