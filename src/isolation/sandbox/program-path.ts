import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";

/** The file a command runs: itself where it has a slash, else the first on PATH; real path. */
export function programPath(command: string, path: string, cwd: string): string | undefined {
  const candidates = command.includes("/")
    ? [isAbsolute(command) ? command : resolve(cwd, command)]
    : path
        .split(delimiter)
        .filter((dir) => dir !== "")
        .map((dir) => join(dir, command));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return realpathSync(file);
    } catch {
      // not this one
    }
  }
  return undefined;
}

/**
 * What a program (or a script given to it) needs to be seen to run, and no
 * more: for a file inside a `node_modules` tree, the outermost `node_modules`
 * (its package and every dependency it may load); else the file itself and
 * each `node_modules` folder above it, where Node.js looks for its imports.
 * Never the folders around it, which may hold anything (a config, keys).
 */
export function programViews(file: string): string[] {
  const parts = file.split("/");
  const outer = parts.indexOf("node_modules");
  if (outer > 0) return [parts.slice(0, outer + 1).join("/")];
  const views = [file];
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const modules = join(dir, "node_modules");
    if (existsSync(modules)) views.push(realpathSync(modules));
    if (dir === "/") return views;
  }
}
