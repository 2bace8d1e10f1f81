import type { LogEntry, ScriptLimits } from "./protocol.js";

/** What the script logged, up to its bounds, and an entry saying what was dropped. */
export class LogBook {
  private readonly kept: LogEntry[] = [];
  private chars = 0;
  private dropped = 0;

  constructor(private readonly limits: ScriptLimits) {}

  add(level: LogEntry["level"], message: string): void {
    if (this.kept.length >= this.limits.maxLogEntries || this.chars >= this.limits.maxLogChars) {
      this.dropped++;
      return;
    }
    const room = this.limits.maxLogChars - this.chars;
    const kept = message.length > room ? `${message.slice(0, room)}…` : message;
    this.chars += kept.length;
    this.kept.push({ level, message: kept });
  }

  entries(): LogEntry[] {
    return this.dropped === 0
      ? [...this.kept]
      : [...this.kept, { level: "warn", message: `${this.dropped} more log entries were dropped` }];
  }
}
