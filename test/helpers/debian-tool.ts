import { spawnSync } from "node:child_process";

/**
 * The path of a program from Debian's packages, installing its package when
 * it is missing and this is CI (which runs as root with Debian's mirrors
 * reachable); undefined elsewhere, so that the test says it skipped and why.
 */
export function debianTool(program: string, pkg: string): string | undefined {
  const found = () => {
    const which = spawnSync("sh", ["-c", 'command -v "$0"', program], { encoding: "utf8" });
    return which.status === 0 ? which.stdout.trim() : undefined;
  };
  const path = found();
  if (path !== undefined || process.env.CI !== "true") return path;
  const quiet = { stdio: "ignore", timeout: 300_000 } as const;
  spawnSync("apt-get", ["update", "-qq"], quiet);
  spawnSync("apt-get", ["install", "-y", "-qq", pkg], {
    ...quiet,
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  return found();
}
