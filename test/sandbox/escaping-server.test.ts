import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { bubblewrap } from "../helpers/bubblewrap.js";
import { ESCAPING } from "../helpers/escaping.js";
import { escapeTests } from "../helpers/escape-tests.js";
import { redisAvailable } from "../helpers/services.js";

/**
 * A stdio MCP server that tries to escape, run sandboxed and unsandboxed side by side:
 * each attempt that works unsandboxed (so the test proves the sandbox, not
 * the server) is refused or contained sandboxed, and the broker and its
 * other sources keep serving.
 */
const { why } = bubblewrap();
const hasRedis = await redisAvailable();

const granted = mkdtempSync(join(tmpdir(), "sandbox-grant-"));
const outside = mkdtempSync(join(tmpdir(), "sandbox-outside-"));
let broker: TestBroker;

beforeAll(async () => {
  if (why) return;
  process.env.BROKER_ONLY_SECRET = "hunter2";
  const hostile = (sandbox: unknown) => ({
    backend: "stdio",
    command: [process.execPath, ESCAPING],
    ...(sandbox === undefined ? {} : { sandbox }),
  });
  broker = await startBroker({
    registry: { predefined: false },
    pinning: "off",
    tree: [
      { path: "/open", source: hostile(undefined) },
      {
        path: "/boxed",
        source: hostile({
          fs: { read: [], write: [granted] },
          memory_mb: 128,
          pids: 48,
          open_files: 64,
        }),
      },
      { path: "/spinner", source: hostile({ cpu_s: 1 }) },
    ],
  });
}, 60_000);
afterAll(() => broker?.close());

async function attempt(
  where: "open" | "boxed" | "spinner",
  args: Record<string, unknown>,
): Promise<string> {
  const res = await broker.post("/meta_call", { path: `/${where}/attempt`, args });
  if (res.status !== 200) return `failed ${res.body.error.kind}`;
  return res.body.output.content[0].text as string;
}

describe(`a hostile stdio server in its sandbox ${why}`, () => {
  escapeTests({
    run: why === "",
    hasRedis,
    attempt,
    configFile: () => broker.configFile,
    granted,
    outside,
  });

  it.runIf(why === "")("has only the environment its source grants", async () => {
    expect(await attempt("boxed", { what: "env", name: "BROKER_ONLY_SECRET" })).toBe(
      "refused unset",
    );
    // Unsandboxed, the broker passes a few safe variables (SHELL among them); sandboxed, not those either.
    expect(await attempt("open", { what: "env", name: "PATH" })).toMatch(/^ok/);
    expect(await attempt("boxed", { what: "env", name: "HOME" })).toBe("ok /tmp");
    expect(await attempt("boxed", { what: "env", name: "USER" })).toBe("refused unset");
  });

  it.runIf(why === "")("cannot start processes without end: the pids limit holds", async () => {
    expect(await attempt("open", { what: "processes_started", count: 100 })).toBe("ok started 100");
    const boxed = await attempt("boxed", { what: "processes_started", count: 100 });
    expect(boxed).toMatch(/^refused EAGAIN after \d+$/);
    expect(Number(boxed.split(" ").at(-1))).toBeLessThan(48);
    // It still serves.
    expect(await attempt("boxed", { what: "env", name: "HOME" })).toBe("ok /tmp");
  });

  it.runIf(why === "")(
    "is ended at its memory limit and restarted, saying why, while the others serve on",
    async () => {
      expect(await attempt("open", { what: "allocate", mb: 256 })).toBe("ok 256 MB");
      const before = broker.broker.health().sources["/boxed"]!.restarts;
      expect(await attempt("boxed", { what: "allocate", mb: 256 })).toMatch(/^failed unavailable/);
      await expect
        .poll(() => broker.broker.health().sources["/boxed"]!.restarts, { timeout: 20_000 })
        .toBeGreaterThan(before);
      await expect
        .poll(() => broker.broker.health().sources["/boxed"]!.up, { timeout: 20_000 })
        .toBe(true);
      expect(broker.broker.health().sources["/boxed"]!.lastDown).toContain(
        "its sandbox ended it: it used its whole memory (sandbox.memory_mb, 128 MB)",
      );
      expect(await attempt("open", { what: "env", name: "PATH" })).toMatch(/^ok/);
      expect(await attempt("boxed", { what: "env", name: "HOME" })).toBe("ok /tmp");
    },
    30_000,
  );

  it.runIf(why === "")(
    "is ended at its CPU limit and restarted, saying why",
    async () => {
      const before = broker.broker.health().sources["/spinner"]!.restarts;
      expect(await attempt("spinner", { what: "spin" })).toMatch(/^failed unavailable/);
      await expect
        .poll(() => broker.broker.health().sources["/spinner"]!.restarts, { timeout: 20_000 })
        .toBeGreaterThan(before);
      expect(broker.broker.health().sources["/spinner"]!.lastDown).toContain(
        "its sandbox ended it: it used its CPU time (sandbox.cpu_s, 1 s)",
      );
      await expect
        .poll(() => broker.broker.health().sources["/spinner"]!.up, { timeout: 20_000 })
        .toBe(true);
      expect(await attempt("spinner", { what: "env", name: "HOME" })).toBe("ok /tmp");
    },
    30_000,
  );
});

mkdirSync(granted, { recursive: true });
