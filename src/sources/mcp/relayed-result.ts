import type { CallToolResult } from "@modelcontextprotocol/client";
import { z } from "zod";

/**
 * A backend's `tools/call` result, checked only as far as the broker reads it.
 * The SDK's full schema re-validates every content block on every call; the
 * broker relays blocks untouched, and the client at the end validates them.
 */
export const RelayedCallToolResult = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
}) as unknown as z.ZodType<CallToolResult>;
