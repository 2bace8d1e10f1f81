import { pino, type Logger } from "pino";
import { PinoPretty } from "pino-pretty";

export type { Logger };

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/**
 * Logs on stderr (stdout is the MCP channel in stdio mode and must stay
 * clean): JSON lines, for collectors and files; on a terminal, lines for
 * people (pino-pretty). `MCP_BROKER_LOG_FORMAT=json` or `pretty` decides
 * instead of the terminal.
 */
export function createLogger(level: string = "info"): Logger {
  const options = { level, base: { name: "mcp-broker" } };
  const format = process.env.MCP_BROKER_LOG_FORMAT;
  const pretty = format === "pretty" || (format !== "json" && process.stderr.isTTY === true);
  if (!pretty) return pino(options, pino.destination({ fd: 2, sync: false }));
  return pino(
    options,
    PinoPretty({
      destination: 2,
      translateTime: "SYS:HH:MM:ss.l",
      ignore: "pid,hostname,name",
      colorize: process.stderr.isTTY === true,
      singleLine: true,
      // A person reads it as it happens, in the order it happened.
      sync: true,
    }),
  );
}
