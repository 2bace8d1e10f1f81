import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";

const STAND_IN = fileURLToPath(new URL("../fixtures/ctxt-stand-in.mjs", import.meta.url));
/** The contract's table: tool name → the exact command line. */
const CONTRACT: [string, string][] = [
  ["ctxt_self_report", "ctxt --json self report"],
  ["ctxt_schema", "ctxt --json schema"],
  ["ctxt_capabilities", "ctxt --json capabilities"],
  ["ctxt_proposals_list", "ctxt --json proposals list"],
  ["ctxt_proposals_inspect_latest", "ctxt --json proposals inspect latest --max-bytes 12000"],
  [
    "ctxt_proposals_inspect_latest_by_id",
    "ctxt --json proposals inspect --id latest --max-bytes 12000",
  ],
  ["ctxt_proposals_validate_latest", "ctxt --json proposals validate latest"],
  ["ctxt_proposals_validate_latest_by_id", "ctxt --json proposals validate --id latest"],
  ["ctxt_validate_run", "ctxt --json validate --run"],
  ["ctxt_agent_discover", "ctxt --json agent discover"],
  ["ctxt_runs_list", "ctxt --json runs list"],
  ["ctxt_runs_read_latest", "ctxt --json runs read latest --max-bytes 12000"],
];

const bin = mkdtempSync(join(tmpdir(), "mcp-broker-ctxt-bin-"));
const project = mkdtempSync(join(tmpdir(), "mcp-broker-ctxt-project-"));
const bare = mkdtempSync(join(tmpdir(), "mcp-broker-ctxt-bare-"));
const savedPath = process.env.PATH;

let broker: TestBroker;
beforeAll(async () => {
  copyFileSync(STAND_IN, join(bin, "ctxt"));
  writeFileSync(join(project, "comptext.toml"), "[project]\n");
  process.env.PATH = `${bin}:${savedPath}`;
  broker = await startBroker({
    tree: [{ path: "/ctxt", source: { backend: "command", preset: "ctxt", cwd: project } }],
  });
}, 30_000);
afterAll(async () => {
  await broker?.close();
  process.env.PATH = savedPath;
});

const call = (tool: string) => broker.post("/meta_call", { path: `/ctxt/${tool}`, args: {} });
const calls = () =>
  readFileSync(join(project, "calls.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as string[]);

describe("the ctxt preset", () => {
  it("mounts exactly the twelve tools of the contract", async () => {
    const tree = await broker.post("/meta_tree", { path: "/ctxt" });
    const text = JSON.stringify(tree.body);
    const names = [...text.matchAll(/"(ctxt_[a-z_]+)"/g)].map((m) => m[1]);
    expect([...new Set(names)].sort()).toEqual(CONTRACT.map(([name]) => name).sort());
  });

  it("runs each tool's exact command line and passes its JSON through", async () => {
    rmSync(join(project, "calls.jsonl"), { force: true });
    for (const [tool] of CONTRACT) {
      const res = await call(tool);
      expect(res.status, tool).toBe(200);
      expect(res.body.is_error, tool).toBe(false);
      expect(res.body.output.structuredContent).toMatchObject({ ok: true, schema_version: "0.1" });
    }
    expect(calls().map((argv) => ["ctxt", ...argv].join(" "))).toEqual(
      CONTRACT.map(([, line]) => line),
    );
  });

  it("keeps what the command said: an invalid proposal is a result, a failed step an error with its JSON", async () => {
    const validate = await call("ctxt_proposals_validate_latest");
    expect(validate.body.is_error).toBe(false);
    expect(validate.body.output.structuredContent).toMatchObject({ valid: false });
    writeFileSync(join(project, "fail-validate"), "");
    try {
      const run = await call("ctxt_validate_run");
      expect(run.body.is_error).toBe(true);
      expect(run.body.output.structuredContent.error).toMatchObject({
        kind: "exit",
        exit_code: 1,
        command_output: { ok: false, failed_step: "test" },
      });
    } finally {
      rmSync(join(project, "fail-validate"));
    }
  });

  it("refuses to start where the project's config file is missing, saying which", async () => {
    await expect(
      startBroker({
        tree: [{ path: "/ctxt", source: { backend: "command", preset: "ctxt", cwd: bare } }],
      }),
    ).rejects.toThrow(/needs comptext\.toml or comptext\.example\.toml in its working directory/);
  });

  it("runs the program named in the config instead of ctxt on PATH", async () => {
    const other = await startBroker({
      tree: [
        {
          path: "/c",
          source: { backend: "command", preset: "ctxt", cwd: project, program: STAND_IN },
        },
      ],
    });
    try {
      const res = await other.post("/meta_call", { path: "/c/ctxt_schema", args: {} });
      expect(res.body.output.structuredContent).toMatchObject({ ok: true, command: "schema" });
    } finally {
      await other.close();
    }
  });

  it.each([
    [{ backend: "command" }, /either tools or a preset/],
    [{ backend: "command", preset: "nope" }, /preset/],
    [
      { backend: "command", preset: "ctxt", tools: [{ name: "x", argv: ["x"] }] },
      /either tools or a preset/,
    ],
    [{ backend: "command", tools: [{ name: "x", argv: ["x"] }], program: "y" }, /program/],
  ])("refuses the source config %j", (source, message) => {
    const text = JSON.stringify({ tree: [{ path: "/c", source }] });
    expect(() => parseConfig(text, "c.json", ConfigSchema, {})).toThrow(message);
  });
});
