import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { CmsDatabase } from "../cms-database.js";

/** One eMCP tool: its MCP definition and what it does with validated arguments. */
export interface EmcpTool {
  readonly definition: Tool;
  run(cms: CmsDatabase, args: Record<string, unknown>): Promise<CallToolResult>;
}
