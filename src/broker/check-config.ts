import { ConfigError } from "../config/errors.js";
import type { Config } from "../config/schema.js";
import { kindOf } from "../sources/kinds.js";
import { buildSkeleton, type Skeleton } from "../tree/skeleton.js";

/**
 * A config's tree as nodes and mounts, checked beyond its JSON shape: the
 * nodes fit together and each source passes its kind's own check. Nothing is
 * started. Throws a ConfigError listing every problem.
 */
export function checkConfig(config: Config, file = "config"): Skeleton {
  const problems: string[] = [];
  const skeleton = buildSkeleton(config, problems);
  for (const mount of skeleton.mounts) {
    for (const problem of kindOf(mount.source.backend).check(mount.source))
      problems.push(`source at ${mount.id}: ${problem}`);
  }
  if (problems.length > 0) throw new ConfigError(file, problems);
  return skeleton;
}
