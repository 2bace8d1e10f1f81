/**
 * The document analyzer's job process: reads a fetched document's text and
 * analyzes it. Parsers and language models run here, bounded from outside
 * in time and memory (isolation/) and from inside by the job's limits, so a
 * document built to be expensive costs this process, never the broker.
 */
import { BrokerError } from "../../contract/errors.js";
import { serveJobs } from "../../isolation/serve-jobs.js";
import { entities, keywords, sentiment, summarize } from "./analyze-text.js";
import { detectFormat, FORMATS, type DocumentFormat } from "./detect-format.js";
import type { DocumentJob } from "./document-job.js";
import { extractText } from "./extract-text.js";

const ANALYSES = { summary: summarize, keywords, sentiment, entities } as const;

async function answer(job: DocumentJob): Promise<Record<string, unknown>> {
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  const asked = job.op === "extract" ? job.format : undefined;
  const format = (asked ?? detectFormat(bytes)) as DocumentFormat | undefined;
  if (format === undefined || !FORMATS.includes(format)) {
    throw new BrokerError(
      "invalid_params",
      `${job.url} is not a document the analyzer reads (PDF, DOCX, HTML or UTF-8 text)`,
    );
  }
  const { text, ...about } = await extractText(bytes, format, job.limits);
  if (job.op === "extract") {
    const { maxTextChars } = job.limits;
    return {
      format,
      ...about,
      text: text.length > maxTextChars ? text.slice(0, maxTextChars) : text,
      characters: text.length,
      ...(text.length > maxTextChars
        ? {
            truncated: true,
            note: `the text has ${text.length} characters; the first ${maxTextChars} are given (toolsets.documents.max_text_chars)`,
          }
        : {}),
    };
  }
  if (text === "") throw new BrokerError("invalid_params", `${job.url} holds no text to analyze`);
  const { maxAnalyzedChars } = job.limits;
  const read = text.length > maxAnalyzedChars ? wholeWords(text, maxAnalyzedChars) : text;
  return {
    format,
    analysis_type: job.analysis,
    ...(await ANALYSES[job.analysis](read)),
    ...(read.length < text.length
      ? {
          analyzed_characters: read.length,
          characters: text.length,
          note: `the first ${read.length} of ${text.length} characters were analyzed (toolsets.documents.max_analyzed_chars)`,
        }
      : {}),
  };
}

/** At most `max` characters of the text, ending where a word does. */
function wholeWords(text: string, max: number): string {
  const cut = text.slice(0, max);
  const end = cut.search(/\s\S*$/);
  return end > max / 2 ? cut.slice(0, end) : cut;
}

serveJobs((job) => answer(job as DocumentJob));
