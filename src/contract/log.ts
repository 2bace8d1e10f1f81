import { pino, type Logger } from "pino";

export type { Logger };

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** JSON logs on stderr: stdout is the MCP channel in stdio mode and must stay clean. */
export function createLogger(level: string = "info"): Logger {
  return pino({ level, base: { name: "mcp-broker" } }, pino.destination({ fd: 2, sync: false }));
}
