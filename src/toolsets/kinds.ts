import { z } from "zod";
import type { ToolsetsSettings } from "../config/schema.js";
import type { Logger } from "../contract/log.js";
import type { BuiltinToolset } from "./builtin-toolset.js";
import { calculatorKind } from "./calculator/index.js";
import { documentsKind } from "./documents/index.js";
import { imagesKind } from "./images/index.js";
import { timeKind } from "./time/index.js";
import type { AnyToolsetKind } from "./toolset-kind.js";
import { webSearchKind } from "./web-search/index.js";

/** Every built-in toolset there is. A new one: its folder under toolsets/, and one entry here. */
export const TOOLSET_KINDS: readonly [AnyToolsetKind, ...AnyToolsetKind[]] = [
  calculatorKind,
  timeKind,
  documentsKind,
  webSearchKind,
  imagesKind,
];

/** The names a `builtin` source's `toolset` may say. */
export const TOOLSET_NAMES = TOOLSET_KINDS.map((kind) => kind.name) as [string, ...string[]];

/** The config's `toolsets`: each toolset's settings under its key. */
export const ToolsetsSchema = z
  .strictObject(
    Object.fromEntries(
      TOOLSET_KINDS.flatMap((kind) =>
        kind.settings ? [[kind.settings.key, kind.settings.schema.optional()]] : [],
      ),
    ),
  )
  .describe("Settings of the built-in tools.");

/** Every built-in toolset, built with the config's settings: the tool registry protocol's predefined tools. */
export function createBuiltinToolsets(
  settings: ToolsetsSettings = {},
  log: Logger,
): BuiltinToolset[] {
  return TOOLSET_KINDS.map((kind) =>
    kind.create(kind.settings ? settings[kind.settings.key] : undefined, log),
  );
}
