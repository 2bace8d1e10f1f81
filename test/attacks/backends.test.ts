import { fileURLToPath } from "node:url";
import {
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { everyChild, isAlive, writeConfig } from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";
import { healthy, rssMb, underAttack } from "../helpers/under-attack.js";

/**
 * Backends that misbehave (fixtures/hostile-server.mjs), mounted in a broker
 * in a process of its own, while `/healthz` is asked again and again.
 */
const HOSTILE = fileURLToPath(new URL("../fixtures/hostile-server.mjs", import.meta.url));
let broker: BrokerProcess | undefined;
afterEach(() => broker?.stop());

async function mount(env: Record<string, string>, source: Record<string, unknown> = {}) {
  broker = await spawnBroker(
    writeConfig({
      expose: "both",
      tree: [
        {
          path: "/h",
          source: { backend: "stdio", command: [process.execPath, HOSTILE], env, ...source },
        },
      ],
    }),
  );
  return broker;
}

async function post(path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${broker!.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const toolsUnder = async (path: string) =>
  (await everyChild(post, path)).filter((c) => c.type === "tool");

describe("tools/list that never ends", () => {
  it("is read up to max_tools (1000 by default), the rest left out with a log line", async () => {
    const b = await mount({ HOSTILE_PAGES: "endless" });
    expect(await toolsUnder("/h")).toHaveLength(1000);
    expect(rssMb(b.child.pid!)).toBeLessThan(400);
    expect(b.logLines().find((l) => l.source === "/h" && l.max_tools === 1000)?.msg).toBe(
      "the backend lists more than 1000 tools; the rest are left out (max_tools)",
    );
  });

  it("is read up to max_list_pages, when fewer pages hold fewer tools", async () => {
    const b = await mount({ HOSTILE_PAGES: "endless" }, { max_list_pages: 3 });
    // Three pages of 100 tools, and the seven the fixture always has on its first.
    expect(await toolsUnder("/h")).toHaveLength(307);
    expect(b.logLines().find((l) => l.max_list_pages === 3)?.msg).toBe(
      "the backend's tools/list goes on past 3 pages; the rest are left out (max_list_pages)",
    );
  });

  it("one page of 100,000 tools is cut to max_tools as it arrives", async () => {
    const b = await mount({ HOSTILE_TOOLS: "100000" }, { max_tools: 50 });
    expect(await toolsUnder("/h")).toHaveLength(50);
    expect(rssMb(b.child.pid!)).toBeLessThan(400);
  });
});

describe("tools that change without end", () => {
  it("announcements in a burst cost a few reads of the list, and the tree ends current", async () => {
    await mount({ HOSTILE_TOOLS: "900" });
    const watched = await underAttack(
      broker!.child.pid!,
      async () => {
        for (let i = 0; i < 5; i++) {
          expect(
            (await post("/meta_call", { path: "/h/churn", args: { times: 200 } })).status,
          ).toBe(200);
        }
      },
      () => healthy(broker!.url),
    );
    expect(watched.slowestProbeMs).toBeLessThan(1000);
    // After 1,000 announcements the tree shows the last generation of tools.
    await expect
      .poll(
        async () =>
          (await toolsUnder("/h")).some((t: { path: string }) => t.path === "/h/tool_1000_0"),
        {
          timeout: 10_000,
        },
      )
      .toBe(true);
    const stats = await post("/meta_call", { path: "/h/stats", args: {} });
    const { lists } = JSON.parse(stats.body.output.content[0].text as string);
    // One at the start, then at most one a second while they kept coming.
    expect(lists).toBeLessThan(15);
  });
});

describe("floods through one call", () => {
  it("50,000 logs in one call reach the caller as at most 1,000; the broker stays responsive", async () => {
    const b = await mount({});
    const client = await connectHttp(b.url, {}, { path: "/mcp/h" });
    await client.setLoggingLevel("debug");
    let logs = 0;
    client.setNotificationHandler(LoggingMessageNotificationSchema, () => {
      logs++;
    });
    const before = rssMb(b.child.pid!);
    const watched = await underAttack(
      b.child.pid!,
      () => client.callTool({ name: "flood_logs", arguments: { count: 50_000, bytes: 1000 } }),
      () => healthy(b.url),
    );
    expect(textOf(watched.result)).toBe("logged");
    expect(logs).toBeLessThanOrEqual(1000);
    expect(logs).toBeGreaterThan(0);
    expect(watched.slowestProbeMs).toBeLessThan(1000);
    // Parsing 50 MB of logs takes transient memory; none of it is kept for the caller.
    expect(rssMb(b.child.pid!) - before).toBeLessThan(400);
    await expect
      .poll(() =>
        b
          .logLines()
          .some((l) => l.msg === "a backend relayed more than a request may (relay budget)"),
      )
      .toBe(true);
    await client.close();
  });

  it("200,000 lines of stderr in one call reach the log as at most 50 a second, each cut short, the rest counted", async () => {
    const b = await mount({});
    const watched = await underAttack(
      b.child.pid!,
      () =>
        post("/meta_call", {
          path: "/h/flood_stderr",
          args: { count: 200_000, bytes: 200, long: 1_000_000 },
        }),
      () => healthy(b.url),
    );
    expect(watched.result.body.output.content[0].text).toBe("printed");
    expect(watched.slowestProbeMs).toBeLessThan(1000);
    type StderrLine = {
      source?: string;
      msg: string;
      time: number;
      stderr?: string;
      left_out?: number;
    };
    const said = () => (b.logLines() as StderrLine[]).filter((l) => l.source === "/h");
    // What was left out is said once its second is over.
    await expect
      .poll(() => said().some((l) => l.left_out !== undefined), { timeout: 5000 })
      .toBe(true);
    const logged = said().filter((l) => l.msg === "source stderr");
    const leftOut = said().reduce((sum, l) => sum + (l.left_out ?? 0), 0);
    expect(logged.length + leftOut).toBe(200_001);
    const perSecond = new Map<number, number>();
    for (const { time } of logged) {
      const second = Math.floor(time / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    // Windows start at a line, not on the clock's second: two may share one second.
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(100);
    expect(logged[0]?.stderr).toBe(`${"L".repeat(2000)}…`);
    expect(Math.max(...logged.map((l) => l.stderr!.length))).toBeLessThanOrEqual(2001);
  });

  it("20,000 sampling requests in one call reach the caller as at most 64; the rest are refused to the backend", async () => {
    const b = await mount({});
    const client = await connectHttp(
      b.url,
      {},
      { path: "/mcp", client: { capabilities: { sampling: {} } } },
    );
    let asked = 0;
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked++;
      return { role: "assistant", content: { type: "text", text: "no" }, model: "none" };
    });
    const result = await client.callTool({
      name: "h__flood_requests",
      arguments: { count: 20_000, method: "sampling/createMessage" },
    });
    expect(textOf(result)).toBe("asked");
    // The fixture does not wait for answers: the refusals and answers race its reply.
    await expect
      .poll(() => b.logLines().some((l) => l.msg?.toString().includes("relay budget")))
      .toBe(true);
    expect(asked).toBeLessThanOrEqual(64);
    await client.close();
  });
});

describe("a backend's own processes", () => {
  it("end with the backend, even one that ignores SIGTERM", async () => {
    const b = await mount({});
    const spawned = await post("/meta_call", { path: "/h/spawn_child", args: {} });
    const child = Number(spawned.body.output.content[0].text);
    expect(isAlive(child)).toBe(true);
    await b.stop();
    await expect.poll(() => isAlive(child), { timeout: 10_000 }).toBe(false);
  });
});

describe("tool names", () => {
  it("names that would climb, nest, vanish or deceive are mounted escaped, said in the log, and still called", async () => {
    const b = await mount({ HOSTILE_NAMES: "odd" });
    const leaves = (await toolsUnder("/h")).map((t: { path: string }) => t.path).sort();
    expect(leaves).toHaveLength(6);
    for (const path of leaves) expect(path).toMatch(/^\/h\/[A-Za-z0-9_.-]+$/);
    expect(leaves).toContain("/h/ok");
    expect(leaves.some((p: string) => p.startsWith("/h/a_b-"))).toBe(true);
    expect(leaves.some((p: string) => p.startsWith("/h/good_gnp.exe-"))).toBe(true);
    // Called by its escaped path, the backend gets its own name.
    const rtl = leaves.find((p: string) => p.startsWith("/h/good_gnp.exe-"))!;
    const called = await post("/meta_call", { path: rtl, args: {} });
    expect(called.body.output.content[0].text).toBe("good\u202Egnp.exe");
    expect(
      b
        .logLines()
        .some((l) =>
          String(l.problem ?? "").includes("shown escaped; give it a path_aliases entry"),
        ),
    ).toBe(true);
    // Served as itself, the backend's names are shown but for those with invisible characters.
    const own = await connectHttp(b.url, {}, { path: "/mcp/h" });
    const names = (await own.listTools()).tools.map((t) => t.name);
    expect(names).toHaveLength(5);
    expect(names).not.toContain("good\u202Egnp.exe");
    await own.close();
  });
});
