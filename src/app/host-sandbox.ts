import { sandboxPlanOf } from "../isolation/sandbox/sandbox-plan.js";
import {
  sandboxedSpawn,
  sandboxTools,
  type SandboxedSpawn,
} from "../isolation/sandbox/sandboxed-spawn.js";
import { runCommand } from "../sources/command/run-command.js";

/** Long enough for bubblewrap on a loaded machine; the check takes some 30 ms. */
const CHECK_TIMEOUT_MS = 10_000;

/**
 * Why this host cannot run a program in a source's sandbox, or undefined
 * where it can: found by running `true` in the default sandbox the way a
 * source's program runs (bubblewrap and prlimit found, its cgroups made,
 * its namespaces entered), since each of them fails on common hosts (no
 * bubblewrap on macOS, no cgroups for a user who is not root, no namespaces
 * in many containers).
 */
export async function whyNoSandbox(): Promise<string | undefined> {
  const tools = sandboxTools();
  if ("missing" in tools)
    return `${tools.missing} is not installed (Debian's ${tools.pkg}: apt-get install -y ${tools.pkg})`;
  const path = process.env.PATH ?? "/usr/bin:/bin";
  let sandbox: SandboxedSpawn;
  try {
    sandbox = sandboxedSpawn("sandbox-check", sandboxPlanOf(true)!, {
      command: "true",
      args: [],
      env: { PATH: path },
      cwd: "/",
    });
  } catch (err) {
    return (err as Error).message;
  }
  const ran = await runCommand({
    argv: ["true"],
    env: { PATH: path },
    timeoutMs: CHECK_TIMEOUT_MS,
    maxBytes: 1024,
    sandbox,
  });
  if (ran.kind === "ok") return undefined;
  const said = ran.stderr.trim().split("\n")[0];
  return `bubblewrap could not make a sandbox here: ${said || ran.message}`;
}
