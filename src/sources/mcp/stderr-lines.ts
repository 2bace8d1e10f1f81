import { StringDecoder } from "node:string_decoder";
import type { Logger } from "../../contract/log.js";

/** The most lines of one source's stderr logged in a second; the rest are counted, then said. */
export const STDERR_LINES_PER_SECOND = 50;
/** The longest stderr line logged whole; a longer one is cut there. */
export const STDERR_LINE_CHARS = 2000;
/** What the last lines keep of each, for a start's failure message. */
const TAIL_LINE_CHARS = 500;

/**
 * A source's stderr, line by line, into the broker's log at warn, with the
 * source's name. Bounded, since a server may print without end (a loop, a
 * debug level, a hostile one): at most STDERR_LINES_PER_SECOND lines a
 * second are logged, each cut at STDERR_LINE_CHARS, and the lines left out
 * are counted and said in one line once the second is over. A line is held
 * until its end arrives, never more than STDERR_LINE_CHARS of it.
 */
export class StderrLines {
  private readonly decoder = new StringDecoder("utf8");
  private partial = "";
  private windowStart = 0;
  private logged = 0;
  private leftOut = 0;
  private report: NodeJS.Timeout | undefined;
  private readonly tail: string[] = [];

  constructor(
    private readonly source: string,
    private readonly log: Logger,
    /** How many of the last lines `last` gives. */
    private readonly kept: number,
  ) {}

  /** Takes what the server wrote, in whatever pieces it arrived. */
  write(chunk: Buffer): void {
    const text = this.decoder.write(chunk);
    for (let from = 0; ;) {
      const newline = text.indexOf("\n", from);
      const end = newline === -1 ? text.length : newline;
      const room = STDERR_LINE_CHARS + 1 - this.partial.length;
      if (room > 0) this.partial += text.slice(from, Math.min(end, from + room));
      if (newline === -1) return;
      this.line(this.partial);
      this.partial = "";
      from = newline + 1;
    }
  }

  /** The server is gone: its unfinished line is logged, and what was left out said. */
  end(): void {
    this.partial += this.decoder.end();
    if (this.partial !== "") this.line(this.partial);
    this.partial = "";
    this.sayLeftOut();
  }

  /** The last lines, each cut short. */
  last(): string[] {
    return [...this.tail];
  }

  private line(raw: string): void {
    const text = raw.trim();
    if (text === "") return;
    this.tail.push(text.slice(0, TAIL_LINE_CHARS));
    if (this.tail.length > this.kept) this.tail.shift();
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.logged = 0;
    }
    if (this.logged < STDERR_LINES_PER_SECOND) {
      this.logged += 1;
      const stderr =
        text.length > STDERR_LINE_CHARS ? `${text.slice(0, STDERR_LINE_CHARS)}…` : text;
      this.log.warn({ source: this.source, stderr }, "source stderr");
      return;
    }
    this.leftOut += 1;
    if (this.report === undefined) {
      this.report = setTimeout(() => this.sayLeftOut(), 1000 - (now - this.windowStart));
      this.report.unref();
    }
  }

  private sayLeftOut(): void {
    clearTimeout(this.report);
    this.report = undefined;
    if (this.leftOut === 0) return;
    this.log.warn(
      { source: this.source, left_out: this.leftOut },
      `source stderr: ${this.leftOut} lines left out of the log (more than ${STDERR_LINES_PER_SECOND} a second)`,
    );
    this.leftOut = 0;
  }
}
