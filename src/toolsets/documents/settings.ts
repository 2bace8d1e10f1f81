import { z } from "zod";
import { ConfigPath } from "../../config/config-folder.js";
import { Seconds } from "../../config/schema.js";

/** `toolsets.documents`. */
export const DocumentsSettings = z.strictObject({
  roots: z
    .array(ConfigPath)
    .optional()
    .describe("Folders whose files file:// URLs may name; none by default (no file:// at all)."),
  allow_private_networks: z
    .boolean()
    .optional()
    .describe("Let document_url reach loopback, private and link-local addresses; default false."),
  max_bytes: z
    .int()
    .positive()
    .optional()
    .describe("The largest document read; default 20971520 (20 MiB)."),
  timeout_s: Seconds.optional().describe(
    "Longest a fetch may take, and then reading the document; default 20.",
  ),
  max_memory_mb: z
    .int()
    .min(64)
    .max(8192)
    .optional()
    .describe(
      "Heap of a document process, in MiB; a document that needs more is stopped. Default 512.",
    ),
  processes: z
    .int()
    .min(1)
    .max(16)
    .optional()
    .describe("Processes that read documents at once, started when needed. Default 2."),
  max_pages: z
    .int()
    .positive()
    .optional()
    .describe("A PDF of more pages is refused before its text is read; default 1000."),
  max_unzipped_mb: z
    .int()
    .positive()
    .optional()
    .describe(
      "A DOCX whose XML parts unpack to more MiB (as its zip directory declares) is refused before it is unpacked; default 10 (reading one takes some 30 times that in memory).",
    ),
  max_text_chars: z
    .int()
    .positive()
    .optional()
    .describe(
      "extract_text gives at most this many characters, marked truncated; default 1000000.",
    ),
  max_analyzed_chars: z
    .int()
    .positive()
    .optional()
    .describe("analyze_document reads at most this many characters, and says so; default 200000."),
});
