import { AsyncLocalStorage } from "node:async_hooks";
import { isAbsolute, resolve } from "node:path";
import { z } from "zod";

/**
 * The folder of the config file being read. A config's relative paths mean
 * paths from there, never from the process's working directory: a desktop
 * client starts `mcp-broker stdio` from a folder of its own choosing.
 */
const configFolder = new AsyncLocalStorage<string>();

/** Runs `parse` with relative paths resolved against `folder`. */
export function inConfigFolder<T>(folder: string, parse: () => T): T {
  return configFolder.run(folder, parse);
}

/** The folder of the config file being read, where it is read from a file. */
export function currentConfigFolder(): string | undefined {
  return configFolder.getStore();
}

/** A path as the config means it: absolute, from the config's folder when read from a file. */
export function fromConfigFolder(path: string): string {
  const folder = configFolder.getStore();
  return folder === undefined || isAbsolute(path) ? path : resolve(folder, path);
}

/** A file or folder named in a config. */
export const ConfigPath = z.string().min(1).transform(fromConfigFolder);

/**
 * The working directory of a program a source runs: the config's folder when
 * none is given, so that its relative arguments mean what the config's
 * author saw.
 */
export const WorkingDirectory = z
  .string()
  .min(1)
  .optional()
  .transform((path) => (path === undefined ? configFolder.getStore() : fromConfigFolder(path)))
  .describe("Working directory; relative to the config file's folder, which is the default.");
