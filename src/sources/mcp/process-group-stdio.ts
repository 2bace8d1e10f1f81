import { spawn, type ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import {
  ReadBuffer,
  serializeMessage,
  type JSONRPCMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import { HOLD_FD, type ProgramExit } from "../../isolation/sandbox/sandboxed-spawn.js";

export interface ProcessGroupStdioOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment of the program: nothing else of the broker's is passed. */
  readonly env: Record<string, string>;
  readonly cwd?: string | undefined;
  /** The longest message the program may send; past it the connection is dropped. */
  readonly maxBufferSize: number;
  /**
   * Run once the process exists and before it goes on (a sandbox's limits
   * put in place): the process is given a fourth descriptor, the sandbox's
   * `--block-fd`, and released by a byte on it once this resolves.
   */
  readonly hold?: (pid: number) => void | Promise<void>;
  /** Told once the program and what is left of its group have ended, and how the program did. */
  readonly ended?: (exit: ProgramExit) => void;
}

/** How long a program has to end after its stdin closes, then after SIGTERM. */
const GRACE_MS = 2000;

/**
 * MCP over a program's stdin and stdout, the program leading a process group
 * of its own: ending the backend ends everything it started (the server
 * behind `npx`, helpers it spawned), which a signal to its own pid alone
 * leaves running. The group is ended when the connection closes, and when
 * the program exits by itself, since what it left behind is a dead backend's.
 * Otherwise as the SDK's StdioClientTransport: newline-delimited JSON-RPC,
 * stderr as a stream for the caller to read, `pid` and `stderr` present (so
 * the SDK probes the revision on this connection itself).
 */
export class ProcessGroupStdio implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The program's stderr, readable from before it starts. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  private readonly buffer: ReadBuffer;
  private spawned = false;
  private exit: ProgramExit | undefined;
  /** Whether the program had already ended when it was first asked to close; unset until then. */
  private endedFirst: boolean | undefined;

  constructor(private readonly options: ProcessGroupStdioOptions) {
    this.buffer = new ReadBuffer({ maxBufferSize: options.maxBufferSize });
  }

  /** How the program ended, once it has. */
  get exitStatus(): ProgramExit | undefined {
    return this.exit;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("the program was started already");
    return new Promise((resolve, reject) => {
      const { hold } = this.options;
      const child = spawn(this.options.command, [...this.options.args], {
        env: this.options.env,
        cwd: this.options.cwd,
        stdio: hold ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
        // A process group of its own (setsid): the pid is also the group's id.
        detached: true,
        shell: false,
      });
      this.child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => {
        this.spawned = true;
        if (!hold) return resolve();
        const gate = child.stdio[HOLD_FD] as NodeJS.WritableStream;
        // Once released, the program may close its end at any time: that is no error of ours.
        gate.on("error", () => undefined);
        Promise.resolve()
          .then(() => hold(child.pid!))
          .then(
            () => {
              gate.end("go");
              resolve();
            },
            (error: Error) => {
              signalGroup(child, "SIGKILL");
              reject(error);
            },
          );
      });
      child.on("exit", (code, signal) => {
        const exit = { code, signal };
        this.exit = exit;
        void this.endGroup(child).finally(() => this.options.ended?.(exit));
      });
      child.on("close", () => {
        if (this.child === child) this.child = undefined;
        this.onclose?.();
      });
      child.stdin!.on("error", (error) => this.onerror?.(error));
      child.stdout!.on("data", (chunk: Buffer) => this.read(chunk));
      child.stdout!.on("error", (error) => this.onerror?.(error));
      child.stderr!.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error("the program is not running"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Closes stdin, then ends the group: SIGTERM after a grace, SIGKILL after another. */
  async close(): Promise<void> {
    this.endedFirst ??= this.spawned && this.child?.exitCode !== null;
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.stdin?.end();
      if (!(await settlesWithin(exited, GRACE_MS))) {
        signalGroup(child, "SIGTERM");
        if (!(await settlesWithin(exited, GRACE_MS))) signalGroup(child, "SIGKILL");
      }
    }
    if (child) await this.endGroup(child);
    this.buffer.clear();
  }

  /** Whether the program ended by itself, not because the broker or the SDK closed it. */
  exited(): boolean {
    return this.spawned && this.child === undefined && (this.endedFirst ?? true);
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) {
        this.onmessage?.(message);
      }
    } catch (error) {
      this.onerror?.(error as Error);
      void this.close();
    }
  }

  /**
   * Ends what is left of the program's group once the program itself is gone:
   * SIGTERM, and SIGKILL a grace later for what ignored it.
   */
  private async endGroup(child: ChildProcess): Promise<void> {
    if (!signalGroup(child, "SIGTERM")) return;
    for (let waited = 0; waited < GRACE_MS; waited += GROUP_POLL_MS) {
      await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
      if (!signalGroup(child, 0)) return;
    }
    signalGroup(child, "SIGKILL");
  }
}

/** How often a group told to end is looked at: a group has no event for its last member's end. */
const GROUP_POLL_MS = 50;

/** Sends `signal` to the program's process group (0: none, to see that it exists); false when there is none left. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}
