import { isAbsolute, resolve } from "node:path";

/**
 * This very program as argv a client can start from any folder: the same
 * Node, its loader flags made absolute (`--import tsx` when run from
 * source), and the script by its full path.
 */
export function selfCommand(script: string): { command: string; args: string[] } {
  const flags: string[] = [];
  const args = process.execArgv;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--import" && i + 1 < args.length) {
      flags.push(arg, absoluteSpecifier(args[++i]!));
    } else if (arg.startsWith("--import=")) {
      flags.push(`--import=${absoluteSpecifier(arg.slice("--import=".length))}`);
    } else flags.push(arg);
  }
  return { command: process.execPath, args: [...flags, resolve(script)] };
}

/** A module specifier that resolves the same from any folder. */
function absoluteSpecifier(specifier: string): string {
  if (specifier.startsWith("file:") || isAbsolute(specifier)) return specifier;
  return import.meta.resolve(specifier);
}
