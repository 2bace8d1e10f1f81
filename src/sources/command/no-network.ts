import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * The argv prefix that runs a command in a network namespace of its own
 * (no interface but loopback, which is down), or why this machine cannot:
 * `unshare` missing, or user namespaces not allowed.
 */
export function noNetworkPrefix(): { prefix: string[] } | { problem: string } {
  if (process.platform !== "linux") return { problem: `not available on ${process.platform}` };
  const unshare = (process.env.PATH ?? "")
    .split(delimiter)
    .map((dir) => join(dir, "unshare"))
    .find((file) => existsSync(file));
  if (!unshare) return { problem: "unshare (util-linux) is not on PATH" };
  const prefix = [unshare, "--net", "--map-root-user", "--"];
  const probe = spawnSync(prefix[0]!, [...prefix.slice(1), "true"], { stdio: "pipe" });
  if (probe.status !== 0) {
    const why = probe.stderr?.toString().trim() || probe.error?.message || `exit ${probe.status}`;
    return { problem: `${unshare} --net --map-root-user failed: ${why}` };
  }
  return { prefix };
}
