import { defineSourceKind } from "../kind.js";
import { commandArgv } from "./command-line.js";
import {
  HttpSourceSchema,
  StdioSourceSchema,
  type HttpSourceConfig,
  type StdioSourceConfig,
} from "./config.js";
import { httpBackend } from "./http-backend.js";
import { McpSource } from "./mcp-source.js";
import { stdioBackend } from "./stdio-backend.js";

/** An MCP server run as a child process, spoken to over its stdin and stdout. */
export const stdioKind = defineSourceKind<StdioSourceConfig>({
  backend: "stdio",
  configSchema: StdioSourceSchema,
  create: (config, { id, log }) =>
    new McpSource(
      id,
      stdioBackend(id, config, log),
      log,
      config.revision,
      config.start_timeout_s * 1000,
    ),
  identity: (config) =>
    JSON.stringify([
      config.command,
      config.env,
      config.cwd,
      config.revision,
      config.start_timeout_s,
    ]),
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
  create: (config, { id, log }) =>
    new McpSource(id, httpBackend(config), log, config.revision, config.start_timeout_s * 1000),
  identity: (config) =>
    JSON.stringify([config.url, config.headers, config.revision, config.start_timeout_s]),
});
