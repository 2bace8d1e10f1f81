import { writeFileSync } from "node:fs";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import {
  capturingLogger,
  everythingCommand,
  fixtureCommand,
  isAlive,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";
import { connectHttp, connectModern, META_TOOL_NAMES } from "../helpers/mcp-client.js";

const fx = (path: string) => ({
  path,
  source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["pid"] },
});

let broker: TestBroker;
afterAll(() => broker?.close());

describe("--reload", () => {
  it("adds and removes sources while a client stays connected, restarting only what changed", async () => {
    const { log, lines } = capturingLogger();
    broker = await startBroker(
      { expose: "flat", tree: [fx("/keep"), fx("/gone")], registry: { predefined: false } },
      { reload: true, log },
    );
    const client = await connectHttp(broker.url);
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified += 1;
    });
    const pid = async (name: string) =>
      Number(((await client.callTool({ name, arguments: {} })).content as any)[0].text);
    const keepPid = await pid("keep__pid");
    const gonePid = await pid("gone__pid");

    writeFileSync(
      broker.configFile,
      JSON.stringify({
        expose: "flat",
        registry: { predefined: false },
        tree: [
          fx("/keep"),
          {
            path: "/demo",
            source: { backend: "stdio", command: everythingCommand(), tool_filter: ["echo"] },
          },
        ],
      }),
    );
    await expect.poll(() => notified, { timeout: 10_000 }).toBeGreaterThan(0);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(["demo__echo", "keep__pid"]);
    expect(await pid("keep__pid")).toBe(keepPid);
    await expect.poll(() => isAlive(gonePid), { timeout: 5000 }).toBe(false);
    const echo = await client.callTool({ name: "demo__echo", arguments: { message: "new" } });
    expect((echo.content as any)[0].text).toBe("Echo: new");

    // A broken config is refused and the running one stays in force.
    notified = 0;
    writeFileSync(
      broker.configFile,
      '{"tree": [ {"path": "/x", "source": {"backend": "stdio"}} ]}',
    );
    await expect
      .poll(() => lines().map((l) => l.msg), { timeout: 5000 })
      .toContain("config reload failed; the running config stays in force");
    expect(notified).toBe(0);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      "demo__echo",
      "keep__pid",
    ]);
    await client.close();
  });
});

describe("--reload, seen by 2026-07-28 clients", () => {
  it("a reload reaches the next request at once, though its server is kept between requests", async () => {
    const reloading = await startBroker(
      { expose: "flat", tree: [fx("/keep")], registry: { predefined: false } },
      { reload: true },
    );
    try {
      const client = await connectModern(reloading.url);
      const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();
      expect(await names()).toEqual(["keep__pid"]);
      expect(await names()).toEqual(["keep__pid"]);
      writeFileSync(
        reloading.configFile,
        JSON.stringify({ expose: "meta", tree: [fx("/keep")], registry: { predefined: false } }),
      );
      await expect.poll(names, { timeout: 10_000 }).toEqual([...META_TOOL_NAMES].sort());
      await client.close();
    } finally {
      await reloading.close();
    }
  });
});
