import type { z } from "zod";
import type { Logger } from "../contract/log.js";
import type { BuiltinToolset } from "./builtin-toolset.js";

/**
 * One built-in toolset, the way a source kind is one object: the predefined
 * tool it serves, its settings under the config's `toolsets` if it has any,
 * and how it is built from them. `toolsets/kinds.ts` lists them; the
 * config's `toolsets` section and the names a `builtin` source accepts are
 * assembled from that list, so a new toolset is its folder and one line there.
 */
export interface ToolsetKind<S extends z.ZodType> {
  /** The predefined tool's name, as a `builtin` source's `toolset` says it. */
  readonly name: string;
  /** Its settings: their key under `toolsets`, and their schema. */
  readonly settings?: { readonly key: string; readonly schema: S };
  create(settings: z.infer<S> | undefined, log: Logger): BuiltinToolset;
}

/** A toolset kind as the broker holds it, with its settings' type no longer known. */
export interface AnyToolsetKind {
  readonly name: string;
  readonly settings?: { readonly key: string; readonly schema: z.ZodType };
  create(settings: unknown, log: Logger): BuiltinToolset;
}

export function defineToolsetKind<S extends z.ZodType>(kind: ToolsetKind<S>): AnyToolsetKind {
  // Settings reach a kind only after the `toolsets` schema, built from this kind's, accepted them.
  return { ...kind, create: (settings, log) => kind.create(settings as z.infer<S>, log) };
}
