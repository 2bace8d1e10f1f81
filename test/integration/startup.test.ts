import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EVERYONE } from "../../src/auth/token-book.js";
import { Broker } from "../../src/broker/broker.js";
import { ConfigError } from "../../src/config/errors.js";
import { BrokerError } from "../../src/contract/errors.js";
import { parseConfig } from "../../src/config/load.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { serveHttp } from "../../src/app/serve.js";
import {
  capturingLogger,
  fixtureCommand,
  rawServerSource,
  silent,
  writeConfig,
} from "../helpers/broker.js";
import { freePort } from "../helpers/services.js";

const config = (tree: unknown) => parseConfig(JSON.stringify({ tree }), "test", ConfigSchema, {});
const slowSource = (path: string, ms: number) => ({
  path,
  source: { backend: "stdio", command: fixtureCommand(), env: { FIXTURE_DELAY_MS: String(ms) } },
});

describe("start-up", () => {
  it("starts sources in parallel: as long as the slowest, not the sum", async () => {
    const started = Date.now();
    const broker = await Broker.start(
      config([slowSource("/a", 1500), slowSource("/b", 1500), slowSource("/c", 1500)]),
      { log: silent },
    );
    const elapsed = Date.now() - started;
    await broker.close();
    expect(elapsed).toBeGreaterThanOrEqual(1500);
    expect(elapsed).toBeLessThan(4000);
  });

  it("refuses to start when a source fails, naming it; its stderr goes to the log only", async () => {
    const failing = {
      path: "/bad",
      source: { backend: "stdio", command: fixtureCommand(), env: { FIXTURE_FAIL: "1" } },
    };
    const { log, lines } = capturingLogger();
    const refused = Broker.start(config([slowSource("/ok", 0), failing]), { log });
    await expect(refused).rejects.toThrow(
      /\/bad: source \/bad could not start .*: the program exited before it finished the MCP handshake \(its stderr is in the broker log\)/s,
    );
    await expect(refused).rejects.not.toThrow(/told to fail/);
    const stderr = lines().filter((l) => l.source === "/bad" && l.level === 40);
    expect(JSON.stringify(stderr)).toContain("fixture: told to fail at start");
  });

  it("starts a 2025-era server that ignores server/discover, within its start_timeout_s", async () => {
    const started = Date.now();
    const broker = await Broker.start(
      config([
        {
          path: "/q",
          // Answers initialize and tools/list, and nothing else: not even an error for the probe.
          source: { ...rawServerSource({ RAW_UNKNOWN: "silent" }), start_timeout_s: 6 },
        },
      ]),
      { log: silent },
    );
    try {
      expect(broker.list("/q", EVERYONE).children.map((c) => c.name)).toEqual(["nap"]);
      // The probe is given half the start (3 s), then initialize has the rest.
      expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
    } finally {
      await broker.close();
    }
  });

  it("names a command that does not exist, in words; Node's error goes to the log", async () => {
    const missing = {
      path: "/gone",
      source: { backend: "stdio", command: "mcp-broker-no-such-program --x" },
    };
    const { log, lines } = capturingLogger();
    await expect(Broker.start(config([missing]), { log })).rejects.toThrow(
      /\/gone: source \/gone could not start "mcp-broker-no-such-program": the program was not found: check the command and PATH/s,
    );
    expect(lines().find((l) => l.msg === "source failed to start").err).toMatch(/ENOENT/);
  });

  it("with ignoreBroken, leaves a failing source out and serves the rest", async () => {
    const failing = {
      path: "/bad",
      source: { backend: "stdio", command: fixtureCommand(), env: { FIXTURE_FAIL: "1" } },
    };
    const broker = await Broker.start(config([slowSource("/ok", 0), failing]), {
      log: silent,
      ignoreBroken: true,
    });
    try {
      expect(broker.list("/ok", EVERYONE).children.length).toBeGreaterThan(0);
      expect(broker.list("/bad", EVERYONE).children).toEqual([]);
      expect(broker.health().sources["/bad"]!.up).toBe(false);
    } finally {
      await broker.close();
    }
  });

  it("refuses two leaves at one path, and with ignoreBroken drops the later one", async () => {
    const clash = [
      {
        path: "/x",
        source: {
          backend: "stdio",
          command: fixtureCommand(),
          tool_filter: ["pid", "sleep"],
          path_aliases: { sleep: "pid" },
        },
      },
    ];
    await expect(Broker.start(config(clash), { log: silent })).rejects.toThrow(
      /tool "pid" of \/x would be at \/x\/pid, which is taken/,
    );
    const broker = await Broker.start(config(clash), { log: silent, ignoreBroken: true });
    expect(broker.list("/x", EVERYONE).children.map((c) => c.name)).toEqual(["pid"]);
    await broker.close();
  });

  it("refuses config problems the JSON shape cannot show: shell operators, clashing names, nodes outside their parent", async () => {
    const run = async (tree: unknown) => {
      try {
        await Broker.start(config(tree), { log: silent });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).problems.join("\n");
      }
      throw new Error("expected a refusal");
    };
    expect(
      await run([{ path: "/a", source: { backend: "stdio", command: "srv | tee x" } }]),
    ).toMatch(/source at \/a: .*shell operator "\|"/);
    expect(
      await run([
        { path: "/a_b", source: { backend: "stdio", command: "x" } },
        { path: "/a/b", source: { backend: "stdio", command: "y" } },
      ]),
    ).toMatch(/"a_b" is also the name of the source at \/a_b/);
    expect(await run([{ path: "/a", children: [{ path: "/b" }] }])).toMatch(
      /"\/b" is not under its parent node "\/a"/,
    );
  });
});

describe("start-up, served while the sources start", () => {
  it("serves the config's nodes at once; each source's tools join as it comes up", async () => {
    // /slow starts once the test lets it.
    const hold = join(mkdtempSync(join(tmpdir(), "held-source-")), "hold");
    writeFileSync(hold, "");
    const held = {
      path: "/slow",
      source: { backend: "stdio", command: fixtureCommand(), env: { FIXTURE_HOLD_WHILE: hold } },
    };
    const { broker, ready } = await Broker.open(config([held, slowSource("/quick", 0)]), {
      log: silent,
    });
    try {
      expect(broker.health().sources["/slow"]?.up).toBe(false);
      expect(broker.list("/", EVERYONE).children.map((c) => c.name)).toEqual(
        expect.arrayContaining(["slow", "quick"]),
      );
      expect(broker.list("/slow", EVERYONE)).toEqual({
        path: "/slow",
        children: [],
        notice: "source /slow is still starting; its tools are listed once it is up",
      });
      await expect.poll(() => broker.list("/quick", EVERYONE).children.length).toBeGreaterThan(0);
      const search = { query: "process id", limit: 5, path: "/", includeSchema: false };
      expect((await broker.search(search, EVERYONE)).notice).toMatch(
        /^not searched: the tools of \/slow, not up yet \(meta_tree on a node says why\)(;|$)/,
      );
      rmSync(hold);
      await ready;
      expect(broker.health().sources["/slow"]?.up).toBe(true);
      expect(broker.list("/slow", EVERYONE).children.length).toBeGreaterThan(0);
      expect(broker.list("/slow", EVERYONE).notice).toBeUndefined();
      await broker.searchSettled();
      expect((await broker.search(search, EVERYONE)).notice).toBeUndefined();
    } finally {
      await broker.close();
    }
  });

  it("answers a call under a source still starting once it is up, not with not_found", async () => {
    // No delay of its own: the call below is made in the same turn as the open, before any
    // start can be over, and the wait for the start (5 s at most) has room on a loaded machine.
    const { broker, ready } = await Broker.open(config([slowSource("/slow", 0)]), {
      log: silent,
    });
    const caller = { signal: new AbortController().signal, principal: EVERYONE };
    try {
      expect(broker.list("/slow", EVERYONE).children).toEqual([]);
      const answer = await broker.call("/slow/pid", {}, caller);
      expect(answer.result.content).toEqual([
        { type: "text", text: expect.stringMatching(/^\d+$/) },
      ]);
      await ready;
      // A path that is not there, under a source whose tools are known, is refused at once.
      await expect(broker.call("/slow/pis", {}, caller)).rejects.toThrow(
        "no entry at path /slow/pis (did you mean /slow/pid?)",
      );
    } finally {
      await broker.close();
    }
  });

  it("answers a call under a source whose first start fails with why, once it has failed", async () => {
    const failing = {
      path: "/bad",
      source: {
        backend: "stdio",
        command: fixtureCommand(),
        env: { FIXTURE_FAIL: "1", FIXTURE_DELAY_MS: "500" },
      },
    };
    const { broker, ready } = await Broker.open(config([failing]), {
      log: silent,
      ignoreBroken: true,
    });
    const caller = { signal: new AbortController().signal, principal: EVERYONE };
    try {
      const refused = await broker.call("/bad/pid", {}, caller).catch((err: BrokerError) => err);
      expect(refused).toBeInstanceOf(BrokerError);
      expect((refused as BrokerError).kind).toBe("unavailable");
      expect((refused as BrokerError).message).toMatch(
        /^source \/bad failed to start \(attempt 1\) and is retried: source \/bad could not start .*the program exited before it finished the MCP handshake/,
      );
      expect(broker.list("/bad", EVERYONE).notice).toMatch(
        /^source \/bad failed to start \(attempt \d+\) and is retried: .*; its tools are listed once it is up$/,
      );
      await ready;
    } finally {
      await broker.close();
    }
  });

  it("says ok only once every source's tools are in the tree it serves", async () => {
    // A source left out at the start, which comes up on a later attempt once its file is there.
    const needed = join(mkdtempSync(join(tmpdir(), "late-source-")), "ready");
    const late = {
      path: "/late",
      source: { backend: "stdio", command: fixtureCommand(), env: { FIXTURE_NEEDS_FILE: needed } },
    };
    const { broker, ready } = await Broker.open(config([slowSource("/quick", 0), late]), {
      log: silent,
      ignoreBroken: true,
    });
    try {
      await ready;
      expect(broker.health().ok).toBe(false);
      writeFileSync(needed, "");
      let sawLateUpWithoutTools = false;
      // Every turn of the event loop: it comes up a rebuild before its tools are in the tree.
      while (!broker.health().ok) {
        const lateTools = broker.list("/late", EVERYONE).children.length;
        if (broker.health().sources["/late"]?.up && lateTools === 0) sawLateUpWithoutTools = true;
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(broker.list("/late", EVERYONE).children.length).toBeGreaterThan(0);
      expect(sawLateUpWithoutTools).toBe(true);
    } finally {
      await broker.close();
    }
  });

  it("says once what does not fit the config, not again as each source comes up", async () => {
    const { log, lines } = capturingLogger();
    const misfit = {
      ...slowSource("/quick", 0),
      source: { ...slowSource("/quick", 0).source, tool_overrides: { nope: { summary: "x" } } },
    };
    const { broker, ready } = await Broker.open(
      config([misfit, slowSource("/slow", 1000), slowSource("/slower", 1500)]),
      { log },
    );
    try {
      await ready;
      const said = lines().filter((l) => String(l.problem ?? "").includes('names tool "nope"'));
      expect(said).toHaveLength(1);
    } finally {
      await broker.close();
    }
  });

  it("starts the sources once told to (the HTTP server listening), and none when that fails", async () => {
    const folder = mkdtempSync(join(tmpdir(), "told-to-start-"));
    const witnessed = (name: string) => ({
      path: `/${name}`,
      source: {
        backend: "stdio",
        command: fixtureCommand(),
        env: { FIXTURE_PID_FILE: join(folder, name) },
      },
    });
    const listening = Promise.withResolvers<void>();
    const { broker, ready } = await Broker.open(config([witnessed("held")]), {
      log: silent,
      startAfter: listening.promise,
    });
    // A source opened after it, started at once, comes up: the held one never began.
    const other = await Broker.start(config([witnessed("other")]), { log: silent });
    await other.close();
    try {
      expect(existsSync(join(folder, "other"))).toBe(true);
      expect(existsSync(join(folder, "held"))).toBe(false);
      expect(broker.list("/", EVERYONE).children.map((c) => c.name)).toContain("held");
      listening.resolve();
      await ready;
      expect(broker.health().sources["/held"]?.up).toBe(true);
      expect(existsSync(join(folder, "held"))).toBe(true);
    } finally {
      await broker.close();
    }

    const failed = Promise.withResolvers<void>();
    const refused = await Broker.open(config([witnessed("never")]), {
      log: silent,
      startAfter: failed.promise,
    });
    failed.reject(new Error("cannot listen on 127.0.0.1:1: the address is in use"));
    await expect(refused.ready).rejects.toThrow(/the address is in use/);
  });

  it("fails as a start would when a source cannot start, with everything closed", async () => {
    const failing = {
      path: "/bad",
      source: { backend: "stdio", command: fixtureCommand(), env: { FIXTURE_FAIL: "1" } },
    };
    const { broker, ready } = await Broker.open(config([slowSource("/ok", 0), failing]), {
      log: silent,
    });
    await expect(ready).rejects.toThrow(/\/bad: source \/bad could not start/);
    expect(broker.health().sources["/ok"]?.state).not.toBe("up");
  });

  it("answers HTTP before every source is up, and lets go of its port when the start fails", async () => {
    const port = await freePort();
    const serving = serveHttp({
      host: "127.0.0.1",
      port,
      configFile: writeConfig({
        tree: [
          slowSource("/slow", 1500),
          {
            path: "/bad",
            source: {
              backend: "stdio",
              command: fixtureCommand(),
              env: { FIXTURE_FAIL: "1", FIXTURE_DELAY_MS: "1000" },
            },
          },
        ],
      }),
      log: silent,
    });
    let settled = false;
    const outcome = serving.then(
      () => "served",
      (err: Error) => err.message,
    );
    void outcome.finally(() => (settled = true));
    let health: Response | undefined;
    while (health === undefined && !settled) {
      health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    }
    expect(health?.status).toBe(503);
    expect(await Promise.race([outcome, "still starting"])).toBe("still starting");
    expect(await outcome).toMatch(/\/bad: source \/bad could not start/);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it("starts no source when its port is taken, and says so", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    const pidFile = join(mkdtempSync(join(tmpdir(), "port-taken-")), "pid");
    try {
      const serving = serveHttp({
        host: "127.0.0.1",
        port,
        configFile: writeConfig({
          tree: [
            {
              path: "/s",
              source: {
                backend: "stdio",
                command: fixtureCommand(),
                env: { FIXTURE_PID_FILE: pidFile },
              },
            },
          ],
        }),
        log: silent,
      });
      await expect(serving).rejects.toThrow(
        `cannot listen on 127.0.0.1:${port}: the address is in use`,
      );
      expect(existsSync(pidFile)).toBe(false);
    } finally {
      taken.close();
    }
  });
});
