import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, connectModern, textOf } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const MODERN_FIXTURE = fileURLToPath(new URL("../fixtures/modern-server.mjs", import.meta.url));
const modernCommand = (...flags: string[]) => [process.execPath, MODERN_FIXTURE, ...flags];
const admin = token("admin", ["*:/**"]);

/** The modern fixture over HTTP; resolves with its URL once it listens. */
async function modernHttp(...flags: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [MODERN_FIXTURE, "--http", "0", ...flags], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
  );
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

let broker: TestBroker;
const children: ChildProcess[] = [];
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  const both = await modernHttp();
  const modernOnly = await modernHttp("--modern-only");
  children.push(both.child, modernOnly.child);
  broker = await startBroker({
    registry: { predefined: false },
    auth: { tokens: configEntries(admin) },
    tree: [
      { path: "/m", source: { backend: "stdio", command: modernCommand(), name: "m" } },
      {
        path: "/mo",
        source: { backend: "stdio", command: modernCommand("--modern-only"), name: "mo" },
      },
      { path: "/mh", source: { backend: "http", url: both.url, name: "mh" } },
      { path: "/moh", source: { backend: "http", url: modernOnly.url, name: "moh" } },
      {
        path: "/mpinned",
        source: { backend: "http", url: both.url, name: "mpinned", revision: "2025-11-25" },
      },
      { path: "/legacy", source: { backend: "stdio", command: fixtureCommand(), name: "legacy" } },
    ],
  });
}, 60_000);
afterAll(async () => {
  for (const client of opened) await client.close().catch(() => undefined);
  await broker?.close();
  for (const child of children) child.kill();
});

async function health(): Promise<Record<string, { protocol_version?: string }>> {
  const res = await fetch(`${broker.url}/healthz`, { headers: bearer(admin) });
  return ((await res.json()) as { sources: never }).sources;
}

describe("backends of either revision", () => {
  it("probes each backend and speaks its revision; a pin skips the probe", async () => {
    // /healthz names sources by their mount path.
    const revisions = Object.fromEntries(
      Object.entries(await health()).map(([path, s]) => [path, s.protocol_version]),
    );
    expect(revisions).toEqual({
      "/m": "2026-07-28",
      "/mo": "2026-07-28",
      "/mh": "2026-07-28",
      "/moh": "2026-07-28",
      "/mpinned": "2025-11-25",
      "/legacy": "2025-11-25",
    });
  });

  it.each(["m", "mo", "mh", "moh", "mpinned", "legacy"])(
    "calls the tools of %s from clients of both revisions",
    async (name) => {
      const legacy = await connectHttp(broker.url, bearer(admin), { path: `/mcp/${name}` });
      const modern = await connectModern(broker.url, bearer(admin), { path: `/mcp/${name}` });
      opened.push(legacy, modern);
      const a = await legacy.callTool({ name: "pid", arguments: {} });
      const b = await modern.callTool({ name: "pid", arguments: {} });
      expect(Number(textOf(a))).toBeGreaterThan(0);
      expect(textOf(b)).toBe(textOf(a));
    },
  );
});

describe("a 2025-era client calling a 2026-07-28 backend that answers input-required", () => {
  it.each(["m", "moh"])(
    "gets the backend's question as a sampling request, and its answer goes back as the next round (%s)",
    async (name) => {
      const client = await connectHttp(broker.url, bearer(admin), {
        path: `/mcp/${name}`,
        client: { capabilities: { sampling: {} } },
      });
      opened.push(client);
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
        role: "assistant",
        model: "stand-in",
        content: {
          type: "text",
          text: `re: ${JSON.stringify(request.params.messages[0]?.content)}`,
        },
      }));
      const result = await client.callTool({ name: "ask", arguments: { question: "size?" } });
      expect(textOf(result)).toBe('answer: re: {"type":"text","text":"size?"} (state asked:size?)');
    },
  );

  it("the same with elicitation, through the aggregated endpoint", async () => {
    const client = await connectHttp(broker.url, bearer(admin), {
      client: { capabilities: { elicitation: {} } },
    });
    opened.push(client);
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      expect(request.params.message).toBe("Really deploy?");
      return { action: "accept", content: { sure: true } };
    });
    const result = await client.callTool({
      name: "meta_call",
      arguments: { path: "/mh/confirm", args: { action: "deploy" } },
    });
    expect(textOf(result)).toBe("deploy: done");
  });
});

describe("a 2025-era client's log level and subscriptions, through a 2026-07-28 backend", () => {
  it.each(["m", "mh"])(
    "logging/setLevel becomes the level of the session's requests, and a subscription a listen on the backend (%s)",
    async (name) => {
      const client = await connectHttp(broker.url, bearer(admin), { path: `/mcp/${name}` });
      opened.push(client);
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        logs.push(n.params.data);
      });
      const updates: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updates.push(n.params.uri);
      });
      await client.setLoggingLevel("warning");
      expect(textOf(await client.callTool({ name: "say", arguments: { text: "hi" } }))).toBe(
        "said",
      );
      await expect.poll(() => logs).toEqual(["warning: hi"]);
      await client.setLoggingLevel("debug");
      await client.callTool({ name: "say", arguments: { text: "again" } });
      await expect.poll(() => logs.slice(1)).toEqual(["debug: again", "warning: again"]);

      await client.subscribeResource({ uri: "modern://motd" });
      expect(textOf(await client.callTool({ name: "touch", arguments: {} }))).toBe("touched");
      await expect.poll(() => updates).toContain("modern://motd");
      await client.unsubscribeResource({ uri: "modern://motd" });
    },
  );

  it("a subscription outlives a restart of the backend: the listen of the new process names it", async () => {
    const client = await connectHttp(broker.url, bearer(admin), { path: "/mcp/m" });
    opened.push(client);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    await client.subscribeResource({ uri: "modern://motd" });
    const pid = async () => Number(textOf(await client.callTool({ name: "pid", arguments: {} })));
    const before = await pid();
    process.kill(before, "SIGKILL");
    // Up again: a new process answers (a call while it restarts is an error result).
    await expect
      .poll(pid, { timeout: 10_000 })
      .toSatisfy((now: number) => Number.isInteger(now) && now !== before);
    expect(textOf(await client.callTool({ name: "touch", arguments: {} }))).toBe("touched");
    await expect.poll(() => updates).toContain("modern://motd");
  });
});

describe("a 2026-07-28 client calling a 2026-07-28 backend that answers input-required", () => {
  it("answers the backend's question in a round of its own request", async () => {
    const client = await connectModern(broker.url, bearer(admin), {
      path: "/mcp/moh",
      client: { capabilities: { sampling: {} } },
    });
    opened.push(client);
    client.setRequestHandler("sampling/createMessage", async () => ({
      role: "assistant",
      model: "stand-in",
      content: { type: "text", text: "modern" },
    }));
    const result = await client.callTool({ name: "ask", arguments: { question: "q" } });
    expect(textOf(result)).toBe("answer: modern (state asked:q)");
  });
});

describe("a pinned revision the backend does not speak", () => {
  it("keeps the source down, saying so in /healthz, while the rest of the broker serves", async () => {
    const modernOnly = await modernHttp("--modern-only");
    children.push(modernOnly.child);
    const pinned = await startBroker(
      {
        registry: { predefined: false },
        tree: [
          {
            path: "/old",
            source: { backend: "http", url: modernOnly.url, name: "old", revision: "2025-11-25" },
          },
          { path: "/fx", source: { backend: "stdio", command: fixtureCommand(), name: "fx" } },
        ],
      },
      { ignoreBroken: true },
    );
    try {
      const res = await fetch(`${pinned.url}/healthz?details`);
      const body = (await res.json()) as { sources: Record<string, any> };
      expect(body.sources["/old"]).toMatchObject({ up: false });
      expect(body.sources["/old"].last_error).toContain("could not start");
      expect(body.sources["/fx"]).toMatchObject({ up: true, protocol_version: "2025-11-25" });
    } finally {
      await pinned.close();
    }
  });
});

describe("caching hints of lists", () => {
  /** A 2026-07-28 list request's result, as admin on the shared broker unless told otherwise. */
  async function list(
    path: string,
    method = "tools/list",
    to: { url: string; headers: Record<string, string> } = {
      url: broker.url,
      headers: bearer(admin),
    },
  ): Promise<{
    ttlMs: number;
    cacheScope: string;
    resources?: { uri: string }[];
    tools?: { name: string; description: string }[];
  }> {
    const res = await fetch(`${to.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...to.headers,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method,
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    return ((await res.json()) as { result: never }).result;
  }

  it("pass a 2026-07-28 backend's ttl through, private to the token whose scopes filtered the list", async () => {
    expect(await list("/mcp/mh")).toMatchObject({ ttlMs: 60_000, cacheScope: "private" });
  });

  it("give a list from a backend without hints none: stale at once", async () => {
    expect(await list("/mcp/legacy")).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });

  it("combine the sources' hints in an aggregated list: the least fresh, and none from a source without", async () => {
    // One source's own list passes through as the backend gave it.
    expect(await list("/mcp/mh", "resources/list")).toMatchObject({ ttlMs: 30_000 });
    // /mcp gathers the modern sources' lists (30 s) and the 2025-era one's (no hint).
    const aggregated = await list("/mcp", "resources/list");
    expect(aggregated.resources!.map((r) => r.uri)).toContain(
      "mcp-broker://mh/modern%3A%2F%2Fmotd",
    );
    expect(aggregated).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });

  it("keep an aggregated list of hinted sources fresh, and public where no token filtered it", async () => {
    const both = await modernHttp();
    children.push(both.child);
    const open = await startBroker({
      registry: { predefined: false },
      tree: [
        { path: "/a", source: { backend: "http", url: both.url, name: "a" } },
        { path: "/b", source: { backend: "stdio", command: modernCommand(), name: "b" } },
      ],
    });
    try {
      const result = await list("/mcp", "resources/list", { url: open.url, headers: {} });
      expect(result.resources).toHaveLength(2);
      expect(result).toMatchObject({ ttlMs: 30_000, cacheScope: "public" });
    } finally {
      await open.close();
    }
  });

  it("give the meta tools, whose descriptions name the caller's top of the tree, the sources' freshness and the caller's scope", async () => {
    const modern = await modernHttp();
    children.push(modern.child);
    const metaOnly = await startBroker({
      registry: { predefined: false },
      expose: "meta",
      tree: [{ path: "/a", source: { backend: "http", url: modern.url, name: "a" } }],
    });
    try {
      const open = await list("/mcp", "tools/list", { url: metaOnly.url, headers: {} });
      expect(open.tools!.find((t) => t.name === "meta_search")!.description).toMatch(/Holds: a\b/);
      expect(open).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });
    } finally {
      await metaOnly.close();
    }
    // A token's list is filtered by its scopes, and so is the top of the tree its descriptions name.
    expect(await list("/mcp")).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });
});
