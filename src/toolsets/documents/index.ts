import { ANY_ADDRESS } from "../../net/address-policy.js";
import { PublicAddresses } from "../../net/public-addresses.js";
import { defineToolsetKind } from "../toolset-kind.js";
import { DocumentAnalyzer } from "./document-analyzer.js";
import { DocumentsSettings } from "./settings.js";

/** The predefined `document_analyzer`: PDF, DOCX, HTML and text, read in worker processes. */
export const documentsKind = defineToolsetKind({
  name: "document_analyzer",
  settings: { key: "documents", schema: DocumentsSettings },
  create: (documents, log) => {
    const maxTextChars = documents?.max_text_chars ?? 1_000_000;
    return new DocumentAnalyzer(
      {
        roots: documents?.roots ?? [],
        policy: documents?.allow_private_networks
          ? ANY_ADDRESS
          : new PublicAddresses("toolsets.documents.allow_private_networks"),
        maxBytes: documents?.max_bytes ?? 20 * 1024 * 1024,
        timeoutMs: (documents?.timeout_s ?? 20) * 1000,
        maxMemoryMb: documents?.max_memory_mb ?? 512,
        processes: documents?.processes ?? 2,
        // Room for the text in UTF-8 (at most 4 bytes a character) and the analyses around it.
        maxReplyBytes: maxTextChars * 4 + 1024 * 1024,
        limits: {
          maxPages: documents?.max_pages ?? 1000,
          maxUnzippedBytes: (documents?.max_unzipped_mb ?? 10) * 1024 * 1024,
          maxTextChars,
          maxAnalyzedChars: documents?.max_analyzed_chars ?? 200_000,
        },
      },
      log,
    );
  },
});
