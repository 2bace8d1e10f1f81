import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BrokerError } from "../../contract/errors.js";
import { programPath, programViews } from "./program-path.js";
import type { SandboxPlan } from "./sandbox-plan.js";

/** The system's own files a program needs to run: libraries, interpreters, certificates. */
const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** Of /etc, only what a program's libraries read: never shadow, never the host's secrets. */
const ETC = [
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/host.conf",
  "/etc/gai.conf",
  "/etc/nsswitch.conf",
  "/etc/localtime",
  "/etc/alternatives",
  "/etc/passwd",
  "/etc/group",
  "/etc/mime.types",
];

/** What to run in the sandbox, and where. */
export interface SandboxedRun {
  readonly command: string;
  readonly args: readonly string[];
  /** The program's whole environment before the sandbox's own (PATH, HOME, LANG). */
  readonly env: Record<string, string>;
  readonly cwd: string;
  /**
   * The arguments the config wrote, where the others come from a caller:
   * only these may name a script the sandbox shows the program (default
   * `args`). A caller's argument never widens the view.
   */
  readonly configArgs?: readonly string[];
}

export interface SandboxedCommand {
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
}

/**
 * The command that runs `command args` inside bubblewrap as `plan` says: a
 * new mount namespace holding only a read-only view of the system's
 * libraries, the program (and the script it is given, and their
 * node_modules), the grants of `fs`, a private /tmp, its own /proc (its own
 * processes only) and /dev; new user, PID, IPC, UTS and cgroup namespaces,
 * and a network namespace of its own (nothing, not even the host's
 * loopback) unless `network` is `all`; no capabilities; the environment
 * given, which holds only what the source's `env` names and a minimal
 * PATH, HOME and LANG. With `blockFd`, the program waits until a byte is
 * written to that descriptor (for its limits to be in place first).
 */
export function bwrapCommand(
  bwrap: string,
  plan: SandboxPlan,
  run: SandboxedRun,
  blockFd?: number,
  /** With a network allowlist: the folder of the broker's egress proxy's socket. */
  egress?: { folder: string; socket: string },
): SandboxedCommand {
  const program = programPath(run.command, run.env.PATH ?? "", run.cwd);
  if (!program) {
    throw new BrokerError(
      "unavailable",
      `"${run.command}" is not a program on the source's PATH; the sandbox runs only what it can see`,
    );
  }
  const scripts = (run.configArgs ?? run.args)
    .map((arg) => (isAbsolute(arg) ? arg : resolve(run.cwd, arg)))
    .filter((file) => /\.(c|m)?js$|\.ts$|\.py$/.test(file) && existsSync(file))
    .map((file) => realpathSync(file));
  const interpreter = realpathSync(process.execPath);
  const relay = egress && egressRelay();
  const read = unique([
    ...[program, ...scripts, interpreter].flatMap(programViews),
    ...(relay ? [relay] : []),
    ...plan.read.map((path) => granted(path)),
  ]);
  const write = unique(plan.write.map((path) => granted(path, true)));
  const args = ["--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL"];
  if (plan.network === "all") args.push("--share-net");
  for (const dir of SYSTEM) {
    if (!existsSync(dir)) continue;
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else args.push("--ro-bind", dir, dir);
  }
  for (const file of ETC) args.push("--ro-bind-try", file, file);
  // Before the grants: a grant under /tmp is bound over the private /tmp, not hidden by it.
  args.push("--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev");
  for (const path of read) args.push("--ro-bind", path, path);
  for (const path of write) args.push("--bind", path, path);
  if (egress) args.push("--dir", "/run", "--bind", egress.folder, EGRESS_FOLDER);
  args.push("--dir", run.cwd, "--chdir", run.cwd);
  if (blockFd !== undefined) args.push("--block-fd", String(blockFd));
  // With an allowlist, the relay runs the program: it is the sandbox's way to the proxy.
  if (relay) {
    const socket = `${EGRESS_FOLDER}/${egress!.socket}`;
    args.push("--", interpreter, relay, socket, String(RELAY_PORT), "--", program, ...run.args);
  } else args.push("--", program, ...run.args);
  const seen = [...SYSTEM, ...read, ...write];
  const path = (run.env.PATH ?? "")
    .split(":")
    .filter((dir) => dir !== "" && seen.some((v) => dir === v || dir.startsWith(`${v}/`)))
    .join(":");
  return {
    command: bwrap,
    args,
    env: {
      ...run.env,
      PATH: path || "/usr/local/bin:/usr/bin:/bin",
      HOME: "/tmp",
      LANG: run.env.LANG ?? process.env.LANG ?? "C.UTF-8",
      ...(relay && proxyEnv(`http://127.0.0.1:${RELAY_PORT}`)),
    },
  };
}

/** Where the proxy's folder is in the sandbox, and the port its relay listens on there. */
const EGRESS_FOLDER = "/run/egress";
const RELAY_PORT = 3128;

/** The relay's file beside this one: compiled (.js) where the package is built, else its source. */
function egressRelay(): string {
  const file = [".js", ".ts"]
    .map((ext) => fileURLToPath(new URL(`./egress-relay${ext}`, import.meta.url)))
    .find((path) => existsSync(path));
  if (!file)
    throw new BrokerError("internal", "the sandbox's egress relay is missing from the package");
  return realpathSync(file);
}

/** The variables clients read their proxy from, both spellings, and Node's switch to obey them. */
function proxyEnv(url: string): Record<string, string> {
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: "",
    no_proxy: "",
    NODE_USE_ENV_PROXY: "1",
  };
}

/**
 * A granted path as it really is (links followed): what is bound, and what
 * the view shows. A writable grant that does not exist yet is made, as a
 * folder only its owner may enter: it is the program's to fill.
 */
function granted(path: string, writable = false): string {
  try {
    if (writable && !existsSync(path)) mkdirSync(path, { recursive: true, mode: 0o700 });
    return realpathSync(path);
  } catch {
    throw new BrokerError(
      "unavailable",
      `the sandbox grants ${path}, which does not exist; create it or take it out of sandbox.fs`,
    );
  }
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
