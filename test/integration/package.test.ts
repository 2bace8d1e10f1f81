import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { collect } from "../helpers/cli.js";
import { debianTool } from "../helpers/debian-tool.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
};
const work = mkdtempSync(join(tmpdir(), "package-"));
/** npm as a user runs it: no update notice, the machine's cache. */
const npmEnv = { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false" };

let tarball: string;
let installed: string;
const children: ReturnType<typeof spawn>[] = [];
afterAll(() => children.forEach((c) => c.kill("SIGTERM")));

function npm(args: string[], cwd: string) {
  const ran = spawnSync("npm", args, { cwd, env: npmEnv, encoding: "utf8", timeout: 600_000 });
  expect(ran.status, `npm ${args.join(" ")}: ${ran.stderr}`).toBe(0);
  return ran.stdout;
}

describe("the package", () => {
  it("packs what runs and nothing of the checkout's own", () => {
    const [packed] = JSON.parse(npm(["pack", "--json", "--pack-destination", work], ROOT)) as {
      filename: string;
      files: { path: string }[];
    }[];
    tarball = join(work, packed!.filename);
    const files = packed!.files.map((f) => f.path);
    expect(files).toContain("dist/main.js");
    expect(files).toContain("examples/demo.json");
    expect(files).toContain("console/index.html");
    for (const file of files) expect(file).not.toMatch(/^(src|test|bench)\/|\.sqlite|\.test\.js$/);
  }, 600_000);

  it("installs into an empty prefix as a working mcp-broker, with no tsx and no dev dependencies", () => {
    installed = join(work, "prefix");
    npm(["install", "--no-audit", "--prefix", installed, tarball], work);
    const bin = join(installed, "node_modules", ".bin", "mcp-broker");
    // Its compiled code is kept for the next start, in the temporary folder.
    const temporary = mkdtempSync(join(work, "tmp-"));
    const ran = spawnSync(bin, ["--version"], {
      encoding: "utf8",
      env: { ...process.env, TMPDIR: temporary },
    });
    expect(ran.stdout.trim()).toBe(version);
    expect(
      readdirSync(join(temporary, "node-compile-cache"), { recursive: true }).length,
    ).toBeGreaterThan(0);
    const tree = npm(["ls", "--all", "--prefix", installed], installed);
    for (const dev of ["tsx", "vitest", "typescript", "eslint"])
      expect(tree).not.toContain(`${dev}@`);
  }, 600_000);

  it("says which Node.js it needs when started by an older one", () => {
    // Debian's own Node.js, where it is older than 22 (as on the machines this was written on).
    const old = spawnSync("/usr/bin/node", ["--version"], { encoding: "utf8" });
    if (old.status !== 0 || Number(old.stdout.slice(1).split(".")[0]) >= 22) {
      console.warn("skipped: no Node.js older than 22 at /usr/bin/node");
      return;
    }
    const entry = join(installed, "node_modules", "mcp-broker", "dist", "main.js");
    const ran = spawnSync("/usr/bin/node", [entry, "--version"], { encoding: "utf8" });
    expect(ran.status).toBe(1);
    expect(ran.stderr).toBe(`mcp-broker needs Node.js 22 or newer; this is ${old.stdout.trim()}\n`);
  });

  it("serves the demo tree from the installed package, started from another folder", async () => {
    // The demo runs its MCP servers in bubblewrap sandboxes: without it, they are left out.
    expect(debianTool("bwrap", "bubblewrap") ?? "bubblewrap is not installed").toMatch(/bwrap$/);
    const child = spawn(
      join(installed, "node_modules", ".bin", "mcp-broker"),
      ["demo", "127.0.0.1:0", "--log-level", "info"],
      {
        cwd: "/",
        env: { ...process.env, XDG_CACHE_HOME: join(work, "cache") },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    children.push(child);
    let log = "";
    child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
    await expect.poll(() => /"msg":"listening"/.test(log), { timeout: 60_000 }).toBe(true);
    const { port, tools } = JSON.parse(log.split("\n").find((l) => l.includes('"listening"'))!);
    expect(tools).toBeGreaterThan(40);
    const url = `http://127.0.0.1:${port}`;
    const health = (await (await fetch(`${url}/healthz`)).json()) as { ok: boolean };
    expect(health.ok).toBe(true);
    const call = (path: string, args: unknown) =>
      fetch(`${url}/meta_call`, { method: "POST", body: JSON.stringify({ path, args }) }).then(
        (r) => r.json() as Promise<{ is_error: boolean; output: unknown }>,
      );
    expect((await call("/demo/add", { a: 2, b: 3 })).output).toBe("The sum of 2 and 3 is 5.");
    // The demo's files and CMS, found from the package's folder, not from "/".
    expect(JSON.stringify((await call("/files/list_directory", { path: "." })).output)).toContain(
      "README.md",
    );
    expect((await call("/cms/evo.content.get", { id: 1 })).is_error).toBe(false);
    expect(await (await fetch(`${url}/`)).text()).toContain("mcp-broker console");
    child.kill("SIGTERM");
    expect((await collect(child)).code).toBe(0);
  }, 120_000);

  it("runs from the tarball with npx, as `npx mcp-broker` would", () => {
    const ran = spawnSync("npx", ["--yes", `--package=${tarball}`, "mcp-broker", "--version"], {
      cwd: work,
      env: npmEnv,
      encoding: "utf8",
      timeout: 600_000,
    });
    expect(ran.stdout.trim()).toBe(version);
  }, 600_000);
});
