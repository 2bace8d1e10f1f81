import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { writeConfig } from "../helpers/broker.js";
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
  (await post("/meta_tree", { path })).body.children.filter(
    (c: { type: string }) => c.type === "tool",
  );

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
    // Three pages of 100 tools, and the six the fixture always has on its first.
    expect(await toolsUnder("/h")).toHaveLength(306);
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
