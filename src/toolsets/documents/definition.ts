import { builtinDefinition } from "../builtin-toolset.js";

/** The document analyzer of the tool registry protocol's predefined tool contracts, as written there. */
export const DOCUMENT_ANALYZER = builtinDefinition({
  name: "document_analyzer",
  description: "Document analysis and content extraction",
  category: "ANALYSIS",
  functions: [
    {
      name: "analyze_document",
      description:
        "Extract and analyze document content: an extractive summary, ranked keywords, sentiment, or named entities (people, places, organizations, dates).",
      parameters: {
        type: "object",
        properties: {
          document_url: { type: "string" },
          analysis_type: {
            type: "string",
            enum: ["summary", "keywords", "sentiment", "entities"],
            default: "summary",
          },
        },
        required: ["document_url"],
      },
    },
    {
      name: "extract_text",
      description:
        "Extract text from various document formats (PDF, DOCX, HTML, plain text; detected from the bytes when format is omitted).",
      parameters: {
        type: "object",
        properties: {
          document_url: { type: "string" },
          format: { type: "string", enum: ["pdf", "docx", "txt", "html"] },
        },
        required: ["document_url"],
      },
    },
  ],
});
