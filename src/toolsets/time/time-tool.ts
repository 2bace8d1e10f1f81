import { DateTime } from "luxon";
import { BrokerError } from "../../contract/errors.js";
import type { HealthReport, ServiceCall } from "../../registry/tool-service.js";
import type { BuiltinToolset } from "../builtin-toolset.js";
import { TIME_TOOL } from "./definition.js";

/** The offsets places on Earth keep, in minutes: from UTC-12:00 to UTC+14:00. */
const EARTH_OFFSETS = { min: -12 * 60, max: 14 * 60 } as const;

const MS_PER: Record<string, number> = {
  seconds: 1000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
};

/**
 * `current_time` and `time_difference` with Luxon. Differences are elapsed
 * time between two instants, so they are exact across DST changes and leap
 * years (a "day" is 24 hours of elapsed time, not a calendar day).
 */
export class TimeTool implements BuiltinToolset {
  readonly definition = TIME_TOOL;

  constructor(private readonly now: () => DateTime = () => DateTime.now()) {}

  async call({ functionName, args }: ServiceCall): Promise<unknown> {
    switch (functionName) {
      case "current_time":
        return this.currentTime(
          typeof args.timezone === "string" ? args.timezone : "UTC",
          typeof args.format === "string" ? args.format : "ISO8601",
        );
      case "time_difference":
        return timeDifference(
          String(args.start_time),
          String(args.end_time),
          typeof args.unit === "string" ? args.unit : "hours",
        );
      default:
        throw new BrokerError("not_found", `the time tool has no function "${functionName}"`, {
          function: functionName,
        });
    }
  }

  async check(): Promise<HealthReport> {
    return { healthy: true };
  }

  private currentTime(timezone: string, format: string): Record<string, unknown> {
    const now = this.now().setZone(timezone);
    // Luxon takes any fixed offset (UTC+99); no place keeps one outside Earth's range.
    if (!now.isValid || now.offset < EARTH_OFFSETS.min || now.offset > EARTH_OFFSETS.max) {
      throw new BrokerError(
        "invalid_params",
        `unknown time zone "${timezone}"; use an IANA name such as UTC, Europe/Berlin or America/New_York, or an offset from UTC-12 to UTC+14`,
        { timezone },
      );
    }
    return {
      time: formatted(now, format),
      timezone: now.zoneName,
      format,
      iso: now.toISO(),
      utc_offset: now.toFormat("ZZ"),
      unix: Math.floor(now.toSeconds()),
    };
  }
}

function formatted(time: DateTime, format: string): string | number {
  switch (format.toUpperCase()) {
    case "ISO8601":
    case "ISO":
      return time.toISO()!;
    case "RFC2822":
      return time.toRFC2822()!;
    case "UNIX":
      return Math.floor(time.toSeconds());
    default:
      return time.toFormat(format);
  }
}

function timeDifference(start: string, end: string, unit: string): Record<string, unknown> {
  const [from, to] = [instant("start_time", start), instant("end_time", end)];
  const ms = to.toMillis() - from.toMillis();
  return {
    difference: ms / MS_PER[unit]!,
    unit,
    start_time: from.toISO(),
    end_time: to.toISO(),
  };
}

/** An ISO 8601 timestamp as an instant; one without an offset is taken as UTC. */
function instant(field: string, text: string): DateTime {
  const time = DateTime.fromISO(text, { zone: "UTC", setZone: true });
  if (!time.isValid) {
    throw new BrokerError(
      "invalid_params",
      `${field} "${text}" is not an ISO 8601 timestamp (${time.invalidExplanation ?? time.invalidReason}); write one such as 2024-03-31T01:30:00+01:00`,
      { [field]: text },
    );
  }
  return time;
}
