import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditSink } from "../../src/broker/audit-sink.js";
import { BrokerMetrics } from "../../src/broker/metrics.js";
import type { AuditEntry } from "../../src/policy/audit/index.js";
import { capturingLogger, fixtureCommand, startBroker } from "../helpers/broker.js";

const entry = (n: number): AuditEntry => ({
  time: new Date().toISOString(),
  token: "t",
  method: "tools/call",
  path: "/src/tool",
  outcome: "ok",
  duration_ms: 1,
  args: { n, secret: "hunter2" },
  result: { content: [{ type: "text", text: "x".repeat(n) }] },
});

/** A sink writing to a fresh file, and the lines it logged. */
function sinkToFile() {
  const file = join(mkdtempSync(join(tmpdir(), "audit-")), "audit.jsonl");
  const { log, lines } = capturingLogger();
  const sink = new AuditSink(
    log,
    new BrokerMetrics(
      () => ({}),
      () => ({}),
    ),
    file,
  );
  return { file, lines, sink };
}

describe("the audit sink", () => {
  it("writes nothing while the calls are being answered, then every record in one batch", async () => {
    const { file, lines, sink } = sinkToFile();
    for (let n = 1; n <= 3; n++) sink.write(entry(n), "/src");
    // Still the calls' turn: no digest computed, no line logged or written.
    expect(lines()).toEqual([]);
    await new Promise((r) => setImmediate(r));
    const logged = lines().filter((l) => l.audit);
    expect(logged).toHaveLength(3);
    expect(logged[2].audit).toMatchObject({ path: "/src/tool", outcome: "ok" });
    expect(logged[2].audit.args_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(logged[2].audit.result_bytes).toBe(JSON.stringify(entry(3).result).length);
    await sink.close();
    const written = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(written.map((r) => r.result_bytes)).toEqual(logged.map((l) => l.audit.result_bytes));
    expect(readFileSync(file, "utf8")).not.toContain("hunter2");
  });

  it("writes what is still queued when it closes", async () => {
    const { file, sink } = sinkToFile();
    sink.write(entry(1), "/src");
    await sink.close();
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1);
  });

  it("never lets one bad record take the broker down: it is logged, the others are written", async () => {
    const { file, lines, sink } = sinkToFile();
    const unserializable = {
      ...entry(1),
      // A result the size of which cannot even be asked for.
      result: {
        toJSON: () => {
          throw new TypeError("not today");
        },
      },
      args: {
        get boom() {
          throw new Error("an argument that throws when read");
        },
      },
    };
    sink.write(unserializable, "/src");
    sink.write(entry(2), "/src");
    await new Promise((r) => setImmediate(r));
    expect(lines().filter((l) => l.audit)).toHaveLength(1);
    expect(lines().find((l) => l.msg === "an audit record failed")).toMatchObject({
      path: "/src/tool",
    });
    await sink.close();
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1);
  });

  it("leaves the log alone when told to, and still writes the file and tells its listeners", async () => {
    const { file, lines, sink } = sinkToFile();
    const heard: string[] = [];
    sink.listen((record) => heard.push(record.path));
    sink.logRecords = false;
    sink.write(entry(1), "/src");
    await new Promise((r) => setImmediate(r));
    expect(heard).toEqual(["/src/tool"]);
    sink.logRecords = true;
    sink.write(entry(2), "/src");
    await sink.close();
    expect(lines().filter((l) => l.audit)).toHaveLength(1);
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(2);
  });
});

describe("audit.log in a config", () => {
  it("keeps the records out of the log, and a reload that sets it back brings them in", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "audit-")), "audit.jsonl");
    const { log, lines } = capturingLogger();
    const config = (logRecords: boolean) => ({
      registry: { predefined: false },
      tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
      audit: { file, log: logRecords },
    });
    const broker = await startBroker(config(false), { reload: true, log });
    try {
      const call = () => broker.post("/meta_call", { path: "/fx/pid", args: {} });
      const written = () => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : []);
      expect((await call()).status).toBe(200);
      await expect.poll(() => written().length, { timeout: 10_000 }).toBe(1);
      expect(lines().filter((l) => l.audit)).toEqual([]);

      writeFileSync(broker.configFile, JSON.stringify(config(true)));
      await expect
        .poll(() => lines().some((l) => l.msg === "config reloaded"), { timeout: 10_000 })
        .toBe(true);
      expect((await call()).status).toBe(200);
      await expect.poll(() => lines().filter((l) => l.audit).length, { timeout: 10_000 }).toBe(1);
      // The file is written on its own stream: it may come after the log line.
      await expect.poll(() => written().length, { timeout: 10_000 }).toBe(2);
    } finally {
      await broker.close();
    }
  });
});
