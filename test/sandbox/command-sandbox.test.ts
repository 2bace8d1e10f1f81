import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { bubblewrap } from "../helpers/bubblewrap.js";
import { escapingCommandTool } from "../helpers/escaping.js";
import { escapeTests } from "../helpers/escape-tests.js";
import { redisAvailable } from "../helpers/services.js";

/**
 * The hostile program of the stdio sandbox's tests, run as a command, one
 * attempt per call, sandboxed and unsandboxed side by side: what works
 * unsandboxed is refused or contained in the sandbox, each run in a sandbox
 * of its own, and a limit that ends a run says so in the tool's error.
 */
const { why } = bubblewrap();
const hasRedis = await redisAvailable();

const granted = mkdtempSync(join(tmpdir(), "command-sandbox-grant-"));
const outside = mkdtempSync(join(tmpdir(), "command-sandbox-outside-"));
let broker: TestBroker;

beforeAll(async () => {
  if (why) return;
  process.env.COMMAND_SANDBOX_SECRET = "hunter2";
  const commands = (sandbox: unknown) => ({
    backend: "command",
    env: ["COMMAND_SANDBOX_SECRET"],
    tools: [escapingCommandTool],
    ...(sandbox === undefined ? {} : { sandbox }),
  });
  broker = await startBroker({
    registry: { predefined: false },
    pinning: "off",
    tree: [
      { path: "/open", source: commands(undefined) },
      {
        path: "/boxed",
        source: commands({
          fs: { write: [granted] },
          memory_mb: 128,
          pids: 48,
          open_files: 64,
          cpu_s: 1,
        }),
      },
    ],
  });
}, 60_000);
afterAll(() => broker?.close());

/** The command's answer, or its tool error's kind and message. */
async function attempt(where: "open" | "boxed", args: Record<string, unknown>): Promise<string> {
  const res = await broker.post("/meta_call", { path: `/${where}/attempt`, args });
  if (res.status !== 200) return `failed ${res.body.error.kind}`;
  const output = res.body.output;
  if (res.body.is_error) {
    const { kind, message } = output.structuredContent.error;
    return `error ${kind}: ${message}`;
  }
  return output.structuredContent.answer as string;
}

describe(`a hostile command in its sandbox ${why}`, () => {
  escapeTests({
    run: why === "",
    hasRedis,
    attempt,
    configFile: () => broker.configFile,
    granted,
    outside,
  });

  it.runIf(why === "")(
    "is not shown a script a caller names in an argument: only the config's arguments widen the view",
    async () => {
      const script = join(outside, "secret.js");
      writeFileSync(script, "module.exports = 'the key';");
      expect(await attempt("open", { what: "read", path: script })).toMatch(/^ok/);
      expect(await attempt("boxed", { what: "read", path: script })).toMatch(/^refused ENOENT/);
    },
  );

  it.runIf(why === "")("has the environment its source names, and HOME is its own", async () => {
    expect(await attempt("boxed", { what: "env", name: "COMMAND_SANDBOX_SECRET" })).toBe(
      "ok hunter2",
    );
    expect(await attempt("open", { what: "env", name: "HOME" })).toBe("refused unset");
    expect(await attempt("boxed", { what: "env", name: "HOME" })).toBe("ok /tmp");
  });

  it.runIf(why === "")(
    "cannot start processes without end, and a limit it got past does not fail the run",
    async () => {
      expect(await attempt("open", { what: "processes_started", count: 100 })).toBe(
        "ok started 100",
      );
      const boxed = await attempt("boxed", { what: "processes_started", count: 100 });
      expect(boxed).toMatch(/^refused EAGAIN after \d+$/);
      expect(Number(boxed.split(" ").at(-1))).toBeLessThan(48);
    },
  );

  it.runIf(why === "")("is ended at its memory limit, and the error says so", async () => {
    expect(await attempt("open", { what: "allocate", mb: 256 })).toBe("ok 256 MB");
    expect(await attempt("boxed", { what: "allocate", mb: 256 })).toBe(
      "error sandbox_limit: its sandbox ended the command: it used its whole memory (sandbox.memory_mb, 128 MB) and was ended",
    );
    // The next run has a sandbox and limits of its own.
    expect(await attempt("boxed", { what: "env", name: "HOME" })).toBe("ok /tmp");
  });

  it.runIf(why === "")("is ended at its CPU limit, and the error says so", async () => {
    expect(await attempt("boxed", { what: "spin" })).toBe(
      "error sandbox_limit: its sandbox ended the command: it used its CPU time (sandbox.cpu_s, 1 s) and was ended",
    );
  });
});
