import { extractText as extractPdfText, getDocumentProxy } from "unpdf";
import { BrokerError } from "../../contract/errors.js";
import type { DocumentFormat } from "./detect-format.js";

/** What is left out of an HTML page's readable text. */
const NOT_CONTENT =
  "script, style, noscript, template, svg, canvas, iframe, nav, header, footer, aside, form, button, [aria-hidden=true], [hidden]";
const BLOCKS =
  "p, div, li, dt, dd, h1, h2, h3, h4, h5, h6, tr, section, article, blockquote, pre, table";

export interface ExtractedText {
  readonly text: string;
  readonly title?: string | undefined;
  readonly pages?: number | undefined;
}

/** The text of a document in a known format. */
export async function extractText(bytes: Buffer, format: DocumentFormat): Promise<ExtractedText> {
  try {
    switch (format) {
      case "pdf": {
        const pdf = await getDocumentProxy(new Uint8Array(bytes));
        const { totalPages, text } = await extractPdfText(pdf, { mergePages: true });
        return { text: tidy(text), pages: totalPages };
      }
      case "docx": {
        // Loaded on first use, as cheerio below: the broker starts without them.
        const { default: mammoth } = await import("mammoth");
        return { text: tidy((await mammoth.extractRawText({ buffer: bytes })).value) };
      }
      case "html":
        return await readableHtml(bytes.toString("utf8"));
      case "txt":
        return { text: tidy(bytes.toString("utf8").replace(/^\uFEFF/, "")) };
    }
  } catch (err) {
    throw new BrokerError(
      "invalid_params",
      `the document could not be read as ${format}: ${(err as Error).message}`,
    );
  }
}

/** The readable text of a page: no scripts, styles or navigation, one line per block. */
async function readableHtml(html: string): Promise<ExtractedText> {
  const cheerio = await import("cheerio");
  const $ = cheerio.load(html);
  const title = $("title").first().text().trim() || undefined;
  $(NOT_CONTENT).remove();
  $("br").replaceWith("\n");
  $(BLOCKS).each((_, element) => {
    $(element).prepend("\n").append("\n");
  });
  return { text: tidy($("body").length > 0 ? $("body").text() : $.root().text()), title };
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
