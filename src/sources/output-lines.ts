import { StringDecoder } from "node:string_decoder";

/** The most lines of one stream logged in a second; the rest are counted, then said. */
export const LINES_PER_SECOND = 50;
/** The longest line logged whole; a longer one is cut there. */
export const LINE_CHARS = 2000;
/** What the last lines keep of each, for a start's failure message. */
const TAIL_LINE_CHARS = 500;

/**
 * What a program of a source prints (a stdio server's stderr, a component's
 * output), line by line, for the broker's log. Bounded, since a program may
 * print without end (a loop, a debug level, a hostile one): at most
 * LINES_PER_SECOND lines a second are given to `say`, each cut at
 * LINE_CHARS, and the lines left out are counted and given to `sayLeftOut`,
 * with a sentence saying so, once the second is over. A line is held until
 * its end arrives, never more than LINE_CHARS of it.
 */
export class OutputLines {
  private readonly decoder = new StringDecoder("utf8");
  private partial = "";
  private windowStart = 0;
  private logged = 0;
  private leftOut = 0;
  private report: NodeJS.Timeout | undefined;
  private readonly tail: string[] = [];

  constructor(
    private readonly say: (line: string) => void,
    private readonly sayLeftOut: (count: number, sentence: string) => void,
    /** How many of the last lines `last` gives. */
    private readonly kept = 0,
  ) {}

  /** Takes what the program wrote, in whatever pieces it arrived. */
  write(chunk: Buffer | string): void {
    const text = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    for (let from = 0; ;) {
      const newline = text.indexOf("\n", from);
      const end = newline === -1 ? text.length : newline;
      const room = LINE_CHARS + 1 - this.partial.length;
      if (room > 0) this.partial += text.slice(from, Math.min(end, from + room));
      if (newline === -1) return;
      this.line(this.partial);
      this.partial = "";
      from = newline + 1;
    }
  }

  /** The program is gone: its unfinished line is logged, and what was left out said. */
  end(): void {
    this.partial += this.decoder.end();
    if (this.partial !== "") this.line(this.partial);
    this.partial = "";
    this.reportLeftOut();
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
    if (this.logged < LINES_PER_SECOND) {
      this.logged += 1;
      this.say(text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS)}…` : text);
      return;
    }
    this.leftOut += 1;
    if (this.report === undefined) {
      this.report = setTimeout(() => this.reportLeftOut(), 1000 - (now - this.windowStart));
      this.report.unref();
    }
  }

  private reportLeftOut(): void {
    clearTimeout(this.report);
    this.report = undefined;
    if (this.leftOut === 0) return;
    this.sayLeftOut(
      this.leftOut,
      `${this.leftOut} lines left out of the log (more than ${LINES_PER_SECOND} a second)`,
    );
    this.leftOut = 0;
  }
}
