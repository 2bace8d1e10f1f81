import type { SourceConfig, SourceSchema } from "../config/schema.js";
import { canonicalJson } from "../contract/digest.js";
import type { ErrorProfile } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import type { Router } from "../contract/router.js";
import type { SoleClient } from "../contract/sole-client.js";
import type { ToolRegistry } from "../registry/tool-registry.js";

/** What a source is given besides its config. */
export interface SourceEnv {
  /** The path of the node it is mounted at: its name in messages and logs. */
  readonly id: string;
  readonly log: Logger;
  /** The broker's registry of tool services, which the `registry` kind serves. */
  readonly registry: ToolRegistry;
  /** The one client the broker serves, where it serves no other (stdio). */
  readonly soleClient?: SoleClient | undefined;
}

/**
 * One kind of source (`backend` in the config), the way a Kysely dialect is
 * one object: its config schema, how to make its Router, and what the broker
 * needs to know about it. `sources/kinds.ts` lists them; the config schema,
 * `check-config`, the source pool and the frontends' error profile are
 * assembled from that list, so a new kind is its folder and one line there.
 */
export interface SourceKind<C extends SourceConfig> {
  readonly backend: string;
  /** The `source` object of this kind; merged into the config's union by `backend`. */
  readonly configSchema: SourceSchema;
  create(config: C, env: SourceEnv): Router;
  /**
   * What besides its config makes the backend what it is (a component
   * file's time of change): a reload that finds it changed restarts the source.
   */
  beyondConfig?(config: C): unknown;
  /** Problems the schema cannot see, found without starting anything (also by `check-config`). */
  check?(config: C): string[];
  /** How its own endpoint (`/mcp/<name>`) answers failures; default `mcp`. */
  readonly errorProfile?: ErrorProfile;
}

/** A kind as the broker holds it, with its config's type no longer known. */
export interface AnySourceKind {
  readonly backend: string;
  readonly configSchema: SourceSchema;
  readonly errorProfile: ErrorProfile;
  create(config: SourceConfig, env: SourceEnv): Router;
  /** What makes the backend what it is: a reload that changes it restarts the source. */
  identity(config: SourceConfig): string;
  check(config: SourceConfig): string[];
}

/** Fields the tree applies to a source's tools: changing them rebuilds the tree, not the source. */
const TREE_FIELDS: readonly string[] = ["name", "tool_filter", "tool_overrides", "path_aliases"];

export function defineSourceKind<C extends SourceConfig>(kind: SourceKind<C>): AnySourceKind {
  // A config reaches a kind only after its schema, chosen by `backend` in the union, accepted it.
  const own = (config: SourceConfig) => config as C;
  return {
    backend: kind.backend,
    configSchema: kind.configSchema,
    errorProfile: kind.errorProfile ?? "mcp",
    create: (config, env) => kind.create(own(config), env),
    // Every field of the validated config but the tree's, so no field can be left out by hand.
    identity: (config) =>
      canonicalJson({
        config: Object.fromEntries(
          Object.entries(config).filter(([field]) => !TREE_FIELDS.includes(field)),
        ),
        beyond: kind.beyondConfig?.(own(config)),
      }) ?? "",
    check: (config) => kind.check?.(own(config)) ?? [],
  };
}
