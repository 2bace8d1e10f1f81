import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Kysely } from "kysely";
import type { EvoDatabase } from "../schema.js";

/** One eMCP tool: its MCP definition and what it does with validated arguments. */
export interface EmcpTool {
  readonly definition: Tool;
  run(db: Kysely<EvoDatabase>, args: Record<string, unknown>): Promise<CallToolResult>;
}
