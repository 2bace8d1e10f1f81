import { readFileSync } from "node:fs";
import { z } from "zod";
import { CommandToolSchema, type CommandSourceConfig } from "./config.js";

/**
 * A preset: a plain JSON file in the package's `presets/` folder, so anyone
 * can read what it runs, or copy its `tools` into a config of their own.
 */
const PresetSchema = z.strictObject({
  description: z.string(),
  program: z.string().min(1),
  /** Files the program needs in its working directory, one of which must be there. */
  requires_one_of: z.array(z.string().min(1)).optional(),
  env: z.array(z.string()),
  timeout_ms: z.int().positive(),
  tools: z.array(CommandToolSchema).min(1),
});

export type CommandTool = NonNullable<CommandSourceConfig["tools"]>[number];

/** A command source's tools and settings, with its preset (if any) filled in. */
export interface CommandSetup {
  readonly tools: readonly CommandTool[];
  readonly env: readonly string[];
  readonly timeoutMs: number | undefined;
  readonly requiresOneOf: readonly string[];
}

const presetsFolder = new URL("../../../presets/", import.meta.url);

export function commandSetup(config: CommandSourceConfig): CommandSetup {
  if (config.preset === undefined) {
    return {
      tools: config.tools ?? [],
      env: config.env ?? [],
      timeoutMs: config.timeout_ms,
      requiresOneOf: [],
    };
  }
  const preset = PresetSchema.parse(
    JSON.parse(readFileSync(new URL(`${config.preset}.json`, presetsFolder), "utf8")),
  );
  const program = config.program ?? preset.program;
  return {
    // The preset's command lines, each run with the configured program.
    tools: preset.tools.map((t) => ({ ...t, argv: [program, ...t.argv.slice(1)] })),
    env: config.env ?? preset.env,
    timeoutMs: config.timeout_ms ?? preset.timeout_ms,
    requiresOneOf: preset.requires_one_of ?? [],
  };
}
