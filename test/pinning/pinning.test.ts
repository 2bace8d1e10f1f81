import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openPinStore } from "../../src/pinning/pin-store.js";
import { MemoryStore } from "../../src/state/memory.js";
import {
  capturingLogger,
  rawServerSource,
  startBroker,
  writeConfig,
  type TestBroker,
} from "../helpers/broker.js";
import { runCli } from "../helpers/cli.js";
import { everyone } from "../helpers/requests.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const SHIFTING = fileURLToPath(new URL("../fixtures/shifting-tools-server.mjs", import.meta.url));
const admin = token("admin", ["*:/**"]);
const user = token("user", ["call:/**", "tree:/**", "describe:/**"]);

const running: TestBroker[] = [];
afterEach(async () => {
  for (const b of running.splice(0)) await b.close();
});

function configOf(pinning: unknown, store: string, env: Record<string, string> = {}) {
  return {
    auth: { tokens: configEntries(admin, user) },
    registry: { predefined: false },
    expose: "both",
    pinning: typeof pinning === "string" ? { mode: pinning, store } : pinning,
    tree: [
      {
        path: "/notes",
        source: { backend: "stdio", command: [process.execPath, SHIFTING], env, name: "notes" },
      },
    ],
  };
}
const freshStore = () => `sqlite:${join(mkdtempSync(join(tmpdir(), "pins-")), "pins.db")}`;

async function start(config: unknown, log = capturingLogger()) {
  const broker = await startBroker(config, { log: log.log });
  running.push(broker);
  return { broker, log };
}

/** The backend's process: its pid, from the source's child, found by its command line. */
async function signalBackend(broker: TestBroker): Promise<void> {
  const changed = new Promise<void>((resolve) => {
    const stop = broker.broker.onTreeChange(() => {
      stop();
      resolve();
    });
  });
  const { execFileSync } = await import("node:child_process");
  const pids = execFileSync("pgrep", ["-f", SHIFTING]).toString().trim().split("\n").map(Number);
  const mine = pids.filter((pid) => {
    try {
      return (
        execFileSync("ps", ["-o", "ppid=", "-p", String(pid)])
          .toString()
          .trim() === String(process.pid)
      );
    } catch {
      return false;
    }
  });
  for (const pid of mine) process.kill(pid, "SIGUSR1");
  await changed;
}

const desc = (broker: TestBroker, path: string) =>
  broker.post("/meta_desc", { path }, bearer(user)).then((r) => r.body);
const pins = (broker: TestBroker) =>
  fetch(`${broker.url}/pins`, { headers: bearer(admin) }).then((r) => r.json() as Promise<any>);

describe("pinned tool definitions", () => {
  it("under warn, a changed definition is logged, flagged in meta_desc and /pins, and still served", async () => {
    const { broker, log } = await start(configOf("warn", freshStore()));
    expect((await desc(broker, "/notes/read_notes")).pinning).toBeUndefined();
    await signalBackend(broker);

    const described = await desc(broker, "/notes/read_notes");
    expect(described.description).toContain("archive service");
    expect(described.pinning).toMatchObject({
      status: "changed",
      changed_fields: ["description", "inputSchema"],
    });
    expect((await desc(broker, "/notes/export_notes")).pinning).toMatchObject({ status: "new" });
    const { changes } = await pins(broker);
    const change = changes.find((c: any) => c.path === "/notes/read_notes");
    expect(change).toMatchObject({ kind: "changed", held: false, source: "/notes" });
    expect(change.diff).toContain('-  "description": "Reads the user\'s notes."');
    expect(change.diff).toContain("archive_url");
    expect(
      log
        .lines()
        .filter((l) => l.msg.startsWith("tool definition changed") && l.source === "/notes"),
    ).toHaveLength(1);
    const called = await broker.post(
      "/meta_call",
      { path: "/notes/read_notes", args: { topic: "x" } },
      bearer(user),
    );
    expect(called.status).toBe(200);
    // Only an admin of the path sees the changes.
    expect(
      (
        await fetch(`${broker.url}/pins`, { headers: bearer(user) }).then(
          (r) => r.json() as Promise<any>,
        )
      ).changes,
    ).toEqual([]);
  });

  it("under enforce, a changed or new tool is held back until an admin approves what is offered", async () => {
    const { broker } = await start(configOf("enforce", freshStore()));
    const client = await connectHttp(broker.url, bearer(user));
    try {
      await signalBackend(broker);
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed).toContain("notes__count_notes");
      expect(listed).not.toContain("notes__read_notes");
      expect(listed).not.toContain("notes__export_notes");

      const refused = await broker.post(
        "/meta_call",
        { path: "/notes/read_notes", args: { topic: "x" } },
        bearer(user),
      );
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toContain(
        "changed since it was pinned (description, inputSchema)",
      );
      await expect(client.callTool({ name: "notes__export_notes", arguments: {} })).rejects.toThrow(
        /new on a source whose tools were pinned before/,
      );
      const tree = await broker.post("/meta_tree", { path: "/notes" }, bearer(user));
      expect(tree.body.children.map((c: any) => c.path)).toEqual(["/notes/count_notes"]);

      // A user may not approve; an admin may, and the tool is back as it is now.
      expect(
        (await broker.post("/pins/approve", { path: "/notes/read_notes" }, bearer(user))).status,
      ).toBe(403);
      const approved = await broker.post(
        "/pins/approve",
        { path: "/notes/read_notes" },
        bearer(admin),
      );
      expect(approved.status).toBe(200);
      expect(approved.body.pin.approved_by).toBe("admin");
      const called = await broker.post(
        "/meta_call",
        { path: "/notes/read_notes", args: { topic: "y" } },
        bearer(user),
      );
      expect(called.body.output.content[0].text).toBe("notes about y");
      expect((await desc(broker, "/notes/read_notes")).description).toContain("archive service");
      expect((await pins(broker)).changes.map((c: any) => c.path)).toEqual(["/notes/export_notes"]);
    } finally {
      await client.close();
    }
  });

  it("catches a definition that changed across a restart (a package update)", async () => {
    const store = freshStore();
    const first = await start(configOf("enforce", store));
    await first.broker.close();
    running.splice(0);
    const { broker } = await start(configOf("enforce", store, { SHIFTED: "1" }));
    const { changes } = await pins(broker);
    expect(changes.map((c: any) => [c.path, c.kind]).sort()).toEqual([
      ["/notes/export_notes", "new"],
      ["/notes/read_notes", "changed"],
    ]);
  });

  it("holds a tool whose description carries hidden orders, from first sight, under enforce", async () => {
    const { broker } = await start(configOf("enforce", freshStore(), { POISONED: "1" }));
    const { changes } = await pins(broker);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ path: "/notes/read_notes", kind: "suspicious", held: true });
    expect(changes[0].findings.map((f: any) => f.rule).sort()).toEqual([
      "conceal-from-user",
      "hidden-tags",
      "secret-files",
    ]);
    const refused = await broker.post(
      "/meta_call",
      { path: "/notes/read_notes", args: { topic: "x" } },
      bearer(user),
    );
    expect(refused.body.error.message).toContain("hidden-tags");
    await broker.post("/pins/approve", { path: "/notes/read_notes" }, bearer(admin));
    expect((await pins(broker)).changes).toEqual([]);
  });

  it("mcp-broker pins lists the changes with their diffs, and approves one", async () => {
    const store = freshStore();
    const first = await start(configOf("enforce", store));
    await first.broker.close();
    running.splice(0);
    const file = writeConfig(configOf("enforce", store, { SHIFTED: "1" }));
    const listed = await runCli("pins", "list", file);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("/notes/read_notes: changed, held back");
    expect(listed.stdout).toContain("+++ /notes/read_notes (offered)");
    expect(listed.stdout).toContain("/notes/export_notes: new, held back");
    const approved = await runCli("pins", "approve", file, "/notes/read_notes");
    expect(approved.stdout).toContain("approved /notes/read_notes");
    const after = await runCli("pins", "list", file);
    expect(after.stdout).not.toContain("/notes/read_notes");
    expect(after.stdout).toContain("/notes/export_notes: new");
  });

  it("leaves out what the config's tool_filter leaves out", async () => {
    const config = configOf("enforce", freshStore());
    config.tree[0]!.source = {
      ...config.tree[0]!.source,
      tool_filter: ["*", "!export_*"],
    } as never;
    const { broker } = await start(config);
    await signalBackend(broker);
    expect((await pins(broker)).changes.map((c: any) => c.path)).toEqual(["/notes/read_notes"]);
  });

  it("a tool a backend lists twice is the first one: the second is not its definition changed", async () => {
    const log = capturingLogger();
    const broker = await startBroker(
      {
        registry: { predefined: false },
        pinning: { mode: "warn", store: freshStore() },
        tree: [{ path: "/raw", source: rawServerSource({ RAW_NAP_TWICE: "1" }) }],
      },
      { log: log.log, ignoreBroken: true },
    );
    running.push(broker);
    const said = () => log.lines().map((l) => l.msg);
    // The tree that left the second out is built once the backend is up.
    await expect.poll(said).toContain("tool left out");
    expect(said()).not.toContain("tool definition changed since it was pinned");
    expect(broker.broker.definitionChanges(everyone)).toEqual([]);
  });

  it("off: nothing is compared, nothing held", async () => {
    const { broker } = await start(configOf("off", freshStore(), { POISONED: "1" }));
    await signalBackend(broker);
    expect((await pins(broker)).changes).toEqual([]);
    const client = await connectHttp(broker.url, bearer(user));
    const result = await client.callTool({ name: "notes__read_notes", arguments: { topic: "z" } });
    expect(textOf(result)).toBe("notes about z");
    await client.close();
  });
});

describe("where pins are kept by default", () => {
  it("says which file it cannot keep them in, and what to do", async () => {
    // A state folder that cannot be made (a file stands where it would be): root is refused too.
    const notAFolder = join(mkdtempSync(join(tmpdir(), "pins-state-")), "file");
    writeFileSync(notAFolder, "");
    const before = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = notAFolder;
    try {
      const opened = openPinStore(
        { store: undefined, configFolder: "/some/config" },
        new MemoryStore(),
        capturingLogger().log,
      );
      await expect(opened).rejects.toThrow(
        new RegExp(
          `cannot keep pinned tool definitions in ${notAFolder}/mcp-broker/pins/.*ENOTDIR.*pinning\\.store`,
        ),
      );
    } finally {
      if (before === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = before;
    }
  });
});
