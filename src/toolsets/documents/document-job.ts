/** The jobs the document analyzer sends its processes (document-process.ts). */
import type { ReadLimits } from "./extract-text.js";

export const ANALYSIS_TYPES = ["summary", "keywords", "sentiment", "entities"] as const;
export type AnalysisType = (typeof ANALYSIS_TYPES)[number];

export interface DocumentLimits extends ReadLimits {
  /** `extract_text` returns at most this many characters, and says so. */
  readonly maxTextChars: number;
  /** `analyze_document` reads at most this many characters, and says so. */
  readonly maxAnalyzedChars: number;
}

interface Fetched {
  /** Where the bytes came from, for messages. */
  readonly url: string;
  readonly bytes: Uint8Array;
  readonly limits: DocumentLimits;
}

export type DocumentJob =
  | (Fetched & { readonly op: "extract"; readonly format?: string | undefined })
  | (Fetched & { readonly op: "analyze"; readonly analysis: AnalysisType });
