import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

/** One attempt of the hostile program, unsandboxed ("open") or sandboxed ("boxed"): its answer. */
export type Attempt = (where: "open" | "boxed", args: Record<string, unknown>) => Promise<string>;

/**
 * The escapes every sandboxed kind of program is tried with, as tests of the
 * calling `describe`: each must work unsandboxed (so the test proves the
 * sandbox, not the program) and be refused or contained sandboxed. The
 * sandbox is granted `granted` to write, and the limits the tests name
 * (64 open files at most).
 */
export function escapeTests(options: {
  /** Whether the tests run (bubblewrap is there). */
  readonly run: boolean;
  readonly hasRedis: boolean;
  readonly attempt: Attempt;
  readonly configFile: () => string;
  readonly granted: string;
  readonly outside: string;
}): void {
  const { run, attempt, granted, outside } = options;
  it.runIf(run).each([
    ["/etc/shadow", { what: "read", path: "/etc/shadow" }],
    ["the broker's config", { what: "read", path: "" }],
    ["the home folder", { what: "list", path: homedir() }],
    ["the broker's environment", { what: "read", path: `/proc/${process.pid}/environ` }],
  ])("may not read %s", async (_what, args) => {
    const asked = args.path === "" ? { ...args, path: options.configFile() } : args;
    expect(await attempt("open", asked)).toMatch(/^ok/);
    expect(await attempt("boxed", asked)).toMatch(/^refused (ENOENT|EACCES)/);
  });

  it.runIf(run)("writes only where its grant says", async () => {
    const file = join(outside, "planted.txt");
    expect(await attempt("boxed", { what: "write", path: file })).toMatch(
      /^refused (ENOENT|EROFS)/,
    );
    expect(await attempt("open", { what: "write", path: file })).toBe("ok written");
    const inside = join(granted, "note.txt");
    expect(await attempt("boxed", { what: "write", path: inside })).toBe("ok written");
    expect(readFileSync(inside, "utf8")).toBe("written by the hostile server");
  });

  it.runIf(run)("sees only its own processes", async () => {
    const open = JSON.parse((await attempt("open", { what: "processes" })).slice(3)) as number[];
    const boxed = JSON.parse((await attempt("boxed", { what: "processes" })).slice(3)) as number[];
    expect(open).toContain(process.pid);
    expect(boxed).not.toContain(process.pid);
    expect(boxed.length).toBeLessThan(5);
  });

  it.runIf(run && options.hasRedis)("reaches no network, loopback included (Redis)", async () => {
    const redis = { what: "connect", host: "127.0.0.1", port: 6379 };
    expect(await attempt("open", redis)).toBe("ok connected");
    expect(await attempt("boxed", redis)).toMatch(/^refused (ECONNREFUSED|ENETUNREACH)/);
  });

  it.runIf(run)("cannot open files without end: the open_files limit holds", async () => {
    expect(await attempt("open", { what: "files_opened", count: 200 })).toBe("ok opened 200");
    const boxed = await attempt("boxed", { what: "files_opened", count: 200 });
    expect(boxed).toMatch(/^refused EMFILE after \d+$/);
    expect(Number(boxed.split(" ").at(-1))).toBeLessThan(64);
  });
}
