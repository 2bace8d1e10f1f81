import { BrokerError } from "../../contract/errors.js";
import type { HealthReport, ServiceCall } from "../../registry/tool-service.js";
import type { BuiltinToolset } from "../builtin-toolset.js";
import { entities, keywords, sentiment, summarize } from "./analyze-text.js";
import { DOCUMENT_ANALYZER } from "./definition.js";
import { detectFormat, FORMATS, type DocumentFormat } from "./detect-format.js";
import { extractText, type ExtractedText } from "./extract-text.js";
import { fetchDocument, type FetchSettings } from "./fetch-document.js";

const ANALYSES = { summary: summarize, keywords, sentiment, entities } as const;

/** `extract_text` and `analyze_document` of seed 001, on a document fetched with care. */
export class DocumentAnalyzer implements BuiltinToolset {
  readonly definition = DOCUMENT_ANALYZER;

  constructor(private readonly settings: FetchSettings) {}

  async call({ functionName, args, signal }: ServiceCall): Promise<unknown> {
    const url = String(args.document_url);
    switch (functionName) {
      case "extract_text": {
        const { format, extracted } = await this.read(url, args.format, signal);
        return { document_url: url, format, ...extracted, characters: extracted.text.length };
      }
      case "analyze_document": {
        const type = (
          typeof args.analysis_type === "string" ? args.analysis_type : "summary"
        ) as keyof typeof ANALYSES;
        const { format, extracted } = await this.read(url, undefined, signal);
        if (extracted.text === "") {
          throw new BrokerError("invalid_params", `${url} holds no text to analyze`);
        }
        return {
          document_url: url,
          format,
          analysis_type: type,
          ...(await ANALYSES[type](extracted.text)),
        };
      }
      default:
        throw new BrokerError(
          "not_found",
          `the document analyzer has no function "${functionName}"`,
          {
            function: functionName,
          },
        );
    }
  }

  async check(): Promise<HealthReport> {
    return { healthy: true };
  }

  private async read(
    url: string,
    asked: unknown,
    signal: AbortSignal,
  ): Promise<{ format: DocumentFormat; extracted: ExtractedText }> {
    const { bytes } = await fetchDocument(url, this.settings, signal);
    const detected = detectFormat(bytes);
    const format = (typeof asked === "string" ? asked : detected) as DocumentFormat | undefined;
    if (format === undefined || !FORMATS.includes(format)) {
      throw new BrokerError(
        "invalid_params",
        `${url} is not a document the analyzer reads (PDF, DOCX, HTML or UTF-8 text)`,
      );
    }
    return { format, extracted: await extractText(bytes, format) };
  }
}
