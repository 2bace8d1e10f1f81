import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BrokerError } from "../../src/contract/errors.js";
import { bwrapCommand } from "../../src/isolation/sandbox/bwrap-command.js";
import { sandboxPlanOf } from "../../src/isolation/sandbox/sandbox-plan.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { fuzzRuns } from "../helpers/fuzz.js";

/**
 * The sandbox's grants, whatever they are written as: what is bound is
 * always a real, absolute path (links followed, `..` resolved), a grant of
 * what does not exist is refused by name (a glob is not expanded: it names
 * nothing), a read grant is never writable, and nothing of the host is seen
 * that the grants, the system's libraries and the program do not bring.
 */
const root = mkdtempSync(join(tmpdir(), "sandbox-grants-"));
for (const dir of ["a", "a/b", "c"]) mkdirSync(join(root, dir), { recursive: true });
writeFileSync(join(root, "a", "file.txt"), "x");
symlinkSync(join(root, "c"), join(root, "link-to-c"));
const secret = mkdtempSync(join(tmpdir(), "sandbox-secret-"));

const run = {
  command: process.execPath,
  args: ["-e", "0"],
  env: { PATH: "/usr/bin:/bin" },
  cwd: root,
};
const existing = ["a", "a/b", "c", "link-to-c", "a/file.txt", "a/b/..", "./a", "c/../a/b"].map(
  (p) => join(root, p),
);
const missing = ["nope", "a/*", "*.txt", "a/b/../../nope"].map((p) => join(root, p));

function binds(args: string[], flag: string): string[] {
  return args.flatMap((a, i) => (a === flag ? [args[i + 1]!] : []));
}

describe("the sandbox's grants", () => {
  it("bind real, absolute paths only, read grants read-only, and nothing else of the host", () => {
    fc.assert(
      fc.property(
        fc.subarray(existing),
        fc.subarray(existing),
        fc.constantFrom<"none" | "all">("none", "all"),
        (read, write, network) => {
          const plan = sandboxPlanOf({ fs: { read, write }, network })!;
          const { args } = bwrapCommand("/usr/bin/bwrap", plan, run);
          const readOnly = binds(args, "--ro-bind");
          const writable = binds(args, "--bind");
          for (const path of [...readOnly, ...writable]) {
            expect(path.startsWith("/")).toBe(true);
            expect(normalize(path)).toBe(path);
            expect(path).not.toContain("link-to-c");
          }
          expect(writable.length).toBeLessThanOrEqual(new Set(write).size);
          for (const path of writable) expect(path.startsWith(root)).toBe(true);
          expect([...readOnly, ...writable].some((p) => p.startsWith(secret))).toBe(false);
          expect(readOnly).not.toContain("/");
          expect(readOnly).not.toContain("/etc");
          expect(args.includes("--share-net")).toBe(network === "all");
          expect(args).toContain("--unshare-all");
        },
      ),
      { seed: 39, numRuns: fuzzRuns(200) },
    );
  });

  it.each(missing)("refuse a read grant of what does not exist, naming it: %s", (path) => {
    const plan = sandboxPlanOf({ fs: { read: [path] } })!;
    expect(() => bwrapCommand("/usr/bin/bwrap", plan, run)).toThrow(BrokerError);
    expect(() => bwrapCommand("/usr/bin/bwrap", plan, run)).toThrow(path);
  });

  it("follow a link to what it names, and make a writable folder that is not there yet", () => {
    const fresh = join(root, "fresh", "folder");
    const plan = sandboxPlanOf({ fs: { read: [join(root, "link-to-c")], write: [fresh] } })!;
    const { args } = bwrapCommand("/usr/bin/bwrap", plan, run);
    expect(binds(args, "--ro-bind")).toContain(join(root, "c"));
    expect(binds(args, "--bind")).toEqual([fresh]);
  });

  it("with empty lists, or true, grant nothing but the program's own files", () => {
    for (const sandbox of [true, { fs: { read: [], write: [] } }, {}]) {
      const plan = sandboxPlanOf(sandbox)!;
      const { args, env } = bwrapCommand("/usr/bin/bwrap", plan, {
        ...run,
        env: { ...run.env, SECRET: "s" },
      });
      expect(binds(args, "--bind")).toEqual([]);
      expect(binds(args, "--ro-bind").some((p) => p.startsWith(root))).toBe(false);
      expect(args).not.toContain("--share-net");
      expect(Object.keys(env).sort()).toEqual(["HOME", "LANG", "PATH", "SECRET"]);
    }
    expect(sandboxPlanOf(undefined)).toBeUndefined();
    expect(sandboxPlanOf(false)).toBeUndefined();
  });

  it("show a script the config's arguments name, never one a caller's argument names", () => {
    const own = join(root, "tool.mjs");
    const theirs = join(secret, "keys.js");
    writeFileSync(own, "");
    writeFileSync(theirs, "");
    const plan = sandboxPlanOf(true)!;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(theirs), fc.constant("-v"), fc.string()), { maxLength: 6 }),
        (callers) => {
          const { args } = bwrapCommand("/usr/bin/bwrap", plan, {
            ...run,
            args: [own, ...callers],
            configArgs: [own],
          });
          const shown = binds(args, "--ro-bind");
          expect(shown).toContain(own);
          expect(shown.some((p) => p.startsWith(secret))).toBe(false);
        },
      ),
      { numRuns: fuzzRuns(100) },
    );
  });
});

describe("a command source's sandbox", () => {
  it("is refused with network beside it: the sandbox says what the network is", () => {
    const source = (extra: Record<string, unknown>) => ({
      tree: [
        {
          path: "/cli",
          source: { backend: "command", tools: [{ name: "t", argv: ["true"] }], ...extra },
        },
      ],
    });
    expect(ConfigSchema.safeParse(source({ sandbox: true })).success).toBe(true);
    expect(ConfigSchema.safeParse(source({ network: false })).success).toBe(true);
    const both = ConfigSchema.safeParse(source({ sandbox: true, network: false }));
    expect(both.success).toBe(false);
    expect(JSON.stringify(both.error?.issues)).toContain("take network out");
  });
});
