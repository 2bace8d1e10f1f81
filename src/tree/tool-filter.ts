import picomatch from "picomatch";

/**
 * The pyMCPBroker specification's `tool_filter`: an unordered list of globs, `!` denying. With no
 * positive pattern every tool is allowed first; otherwise only tools matching a
 * positive pattern are; deny patterns then remove tools either way.
 */
export class ToolFilter {
  private readonly allow: picomatch.Matcher | null;
  private readonly deny: picomatch.Matcher | null;

  constructor(patterns: readonly string[] = []) {
    const positive = patterns.filter((p) => !p.startsWith("!"));
    const negative = patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1));
    this.allow = positive.length > 0 ? picomatch(positive, { dot: true }) : null;
    this.deny = negative.length > 0 ? picomatch(negative, { dot: true }) : null;
  }

  allows(toolName: string): boolean {
    if (this.allow && !this.allow(toolName)) return false;
    return !(this.deny && this.deny(toolName));
  }
}
