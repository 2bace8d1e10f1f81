import { parse } from "shell-quote";

/**
 * A source's `command` as argv. A string is split the way a POSIX shell splits
 * words (quotes, escapes), but it is never given to a shell: pipes, redirects,
 * globs and `$VAR` expansion are refused, since nothing would perform them.
 */
export function commandArgv(command: string | readonly string[]): string[] {
  if (typeof command !== "string") return [...command];
  const words = parse(command, (name) => `$${name}`);
  const argv: string[] = [];
  for (const word of words) {
    if (typeof word === "string") {
      argv.push(word);
      continue;
    }
    const what =
      "op" in word
        ? `the shell operator "${word.op === "glob" ? word.pattern : word.op}"`
        : "a comment";
    throw new Error(
      `command contains ${what}, but commands are run without a shell; give the program and its arguments as an array, or wrap them in a script`,
    );
  }
  if (argv.length === 0) throw new Error("command is empty");
  return argv;
}
