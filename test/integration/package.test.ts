import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { collect } from "../helpers/cli.js";
import { whyNoSandbox } from "../../src/app/host-sandbox.js";
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

/** The `nobody` user of Debian, which may not make cgroups. */
const NOBODY = 65534;

/**
 * `mcp-broker demo` of the installed package, started from "/", once it
 * listens with every source up; its demo servers and files and CMS answer.
 */
async function startDemo(as: { env: Record<string, string>; uid?: number }) {
  const child = spawn(
    join(installed, "node_modules", ".bin", "mcp-broker"),
    ["demo", "127.0.0.1:0", "--log-level", "info"],
    {
      cwd: "/",
      env: { ...process.env, ...as.env },
      stdio: ["ignore", "pipe", "pipe"],
      ...(as.uid !== undefined && { uid: as.uid, gid: as.uid }),
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
  const post = (route: string, body: unknown) =>
    fetch(`${url}/${route}`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json());
  const call = (path: string, args: unknown) =>
    post("meta_call", { path, args }) as Promise<{ is_error: boolean; output: unknown }>;
  expect((await call("/demo/add", { a: 2, b: 3 })).output).toBe("The sum of 2 and 3 is 5.");
  // The demo's files and CMS, found from the package's folder, not from "/".
  expect(JSON.stringify((await call("/files/list_directory", { path: "." })).output)).toContain(
    "README.md",
  );
  expect((await call("/cms/evo.content.get", { id: 1 })).is_error).toBe(false);
  expect(await (await fetch(`${url}/`)).text()).toContain("mcp-broker console");
  return {
    log,
    describe: (path: string) =>
      post("meta_desc", { path }) as Promise<{ source?: { sandbox?: { network: string } } }>,
    async stop() {
      child.kill("SIGTERM");
      expect((await collect(child)).code).toBe(0);
    },
  };
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
    // The demo runs its MCP servers in bubblewrap sandboxes where the host can make them
    // (CI installs bubblewrap and runs as root), and says why not where it cannot.
    debianTool("bwrap", "bubblewrap");
    const sandboxable = (await whyNoSandbox()) === undefined;
    const demo = await startDemo({ env: { XDG_CACHE_HOME: join(work, "cache") } });
    expect(demo.log.includes("cannot sandbox")).toBe(!sandboxable);
    const sandbox = (await demo.describe("/files")).source?.sandbox;
    expect(sandbox?.network).toBe(sandboxable ? "none" : undefined);
    await demo.stop();
  }, 120_000);

  it("serves the whole demo to a user it cannot sandbox for, unsandboxed and saying why", async (ctx) => {
    if (process.getuid?.() !== 0) {
      console.warn("skipped: starting the demo as an unprivileged user needs root");
      return ctx.skip();
    }
    // What a user who is not root has: no cgroups to make, so no sandbox for a source.
    const home = mkdtempSync(join(tmpdir(), "demo-user-"));
    chmodSync(work, 0o755);
    chownSync(home, NOBODY, NOBODY);
    const demo = await startDemo({
      uid: NOBODY,
      env: {
        HOME: home,
        TMPDIR: home,
        XDG_CACHE_HOME: join(home, "cache"),
        XDG_STATE_HOME: join(home, "state"),
        MCP_BROKER_DEMO_MEMORY: join(home, "memory.jsonl"),
      },
    });
    const warning = demo.log.split("\n").find((l) => l.includes("cannot sandbox"));
    expect(JSON.parse(warning!).reason).toMatch(/cgroup/);
    expect((await demo.describe("/files")).source?.sandbox).toBeUndefined();
    await demo.stop();
  }, 120_000);

  it("serves the demo over stdio to a client that starts it, with a desktop client's few variables", async () => {
    const client = new Client({ name: "package-test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(installed, "node_modules", "mcp-broker", "dist", "main.js"), "demo", "--stdio"],
        cwd: "/",
        // What a desktop client gives the servers it starts: its demo servers are found anyway.
        env: {
          PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
          HOME: process.env.HOME ?? "/root",
          XDG_CACHE_HOME: join(work, "cache"),
        },
        stderr: "ignore",
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(["meta_search", "demo__add", "files__read_text_file"]),
      );
      const sum = await client.callTool({ name: "demo__add", arguments: { a: 2, b: 3 } });
      expect(sum.content).toEqual([{ type: "text", text: "The sum of 2 and 3 is 5." }]);
    } finally {
      await client.close();
    }
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
