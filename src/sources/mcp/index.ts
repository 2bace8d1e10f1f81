import type { SoleClient } from "../../contract/sole-client.js";
import { defineSourceKind } from "../kind.js";
import { commandArgv } from "./command-line.js";
import {
  HttpSourceSchema,
  StdioSourceSchema,
  type HttpSourceConfig,
  type StdioSourceConfig,
} from "./config.js";
import { httpBackend } from "./http-backend.js";
import { DEFAULT_MAX_TOOLS } from "../../config/schema.js";
import { McpSource, type McpSourceSettings } from "./mcp-source.js";
import { stdioBackend } from "./stdio-backend.js";

/** An MCP server run as a child process, spoken to over its stdin and stdout. */
export const stdioKind = defineSourceKind<StdioSourceConfig>({
  backend: "stdio",
  configSchema: StdioSourceSchema,
  create: (config, { id, log, soleClient }) =>
    new McpSource(id, stdioBackend(id, config, log), log, settingsOf(config, soleClient)),
  check(config) {
    try {
      commandArgv(config.command);
      return [];
    } catch (err) {
      return [(err as Error).message];
    }
  },
});

/** A remote MCP server over Streamable HTTP. */
export const httpKind = defineSourceKind<HttpSourceConfig>({
  backend: "http",
  configSchema: HttpSourceSchema,
  create: (config, { id, log, soleClient }) =>
    new McpSource(id, httpBackend(config), log, settingsOf(config, soleClient)),
});

function settingsOf(
  config: StdioSourceConfig | HttpSourceConfig,
  soleClient: SoleClient | undefined,
): McpSourceSettings {
  return {
    revision: config.revision,
    startTimeoutMs: config.start_timeout_s * 1000,
    lists: { maxTools: config.max_tools ?? DEFAULT_MAX_TOOLS, maxPages: config.max_list_pages },
    roots: config.roots,
    soleClient,
  };
}
