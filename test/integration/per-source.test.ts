import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  everythingCommand,
  fixtureCommand,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";
import { connectHttp, connectStdio, textOf } from "../helpers/mcp-client.js";

let broker: TestBroker;
let direct: Client;
const sampling = { client: { capabilities: { sampling: {} } } };
const open = (name: string, options: Parameters<typeof connectHttp>[2] = {}) =>
  connectHttp(broker.url, {}, { ...options, path: `/mcp/${name}` });

beforeAll(async () => {
  broker = await startBroker({
    registry: { predefined: false },
    tree: [
      {
        path: "/demo",
        source: { backend: "stdio", command: everythingCommand(), name: "everything" },
      },
      {
        path: "/fx",
        source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["!crash"] },
      },
    ],
  });
  // The broker's own session with a backend offers sampling, elicitation and roots,
  // and some servers show tools by what the client offers: compare like with like.
  direct = await connectStdio(everythingCommand(), {
    client: { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  });
});
afterAll(async () => {
  await direct?.close();
  await broker?.close();
});

describe("a source served as itself at /mcp/<name>", () => {
  it("answers initialize as the backend did: serverInfo, instructions, capabilities", async () => {
    const client = await open("everything", sampling);
    expect(client.getServerVersion()).toEqual(direct.getServerVersion());
    expect(client.getInstructions()).toBe(direct.getInstructions());
    const { tools: _tools, ...rest } = client.getServerCapabilities()!;
    const { tools: _directTools, ...directRest } = direct.getServerCapabilities()!;
    expect(rest).toEqual(directRest);
    expect(client.getServerCapabilities()!.tools).toMatchObject({ listChanged: true });
    await client.close();
  });

  it("lists the backend's tools under their own names, as the backend describes them", async () => {
    const client = await open("everything", sampling);
    expect((await client.listTools()).tools).toEqual((await direct.listTools()).tools);
    const sum = await client.callTool({ name: "get-sum", arguments: { a: 1, b: 2 } });
    expect(sum).toEqual(await direct.callTool({ name: "get-sum", arguments: { a: 1, b: 2 } }));
    await client.close();
  });

  it("applies the node's tool_filter: a filtered tool is unknown there too", async () => {
    const client = await open("fx");
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("crash");
    await expect(client.callTool({ name: "crash", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.not.stringContaining("did you mean"),
    });
    await client.close();
  });

  it("names the tool a mistyped name likely meant, among the source's own", async () => {
    const client = await open("everything");
    await expect(client.callTool({ name: "get-smu", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('unknown tool "get-smu" (did you mean get-sum?)'),
    });
    await client.close();
  });

  it("relays resources, templates, prompts and completion exactly", async () => {
    const client = await open("everything", sampling);
    const resources = await client.listResources();
    expect(resources).toEqual(await direct.listResources());
    const uri = resources.resources[0]!.uri;
    expect(await client.readResource({ uri })).toEqual(await direct.readResource({ uri }));
    expect(await client.listResourceTemplates()).toEqual(await direct.listResourceTemplates());
    const prompts = await client.listPrompts();
    expect(prompts).toEqual(await direct.listPrompts());
    const simple = prompts.prompts.find((p) => !p.arguments?.some((a) => a.required))!;
    expect(await client.getPrompt({ name: simple.name })).toEqual(
      await direct.getPrompt({ name: simple.name }),
    );
    const withArgs = prompts.prompts.find((p) => p.arguments?.some((a) => a.name))!;
    const ref = { type: "ref/prompt" as const, name: withArgs.name };
    const argument = { name: withArgs.arguments![0]!.name, value: "" };
    expect(await client.complete({ ref, argument })).toEqual(
      await direct.complete({ ref, argument }),
    );
    await expect(client.ping()).resolves.toEqual({});
    await client.close();
  });

  it("relays a backend's protocol error with its code and message", async () => {
    const client = await open("everything", sampling);
    const viaBroker = await client.readResource({ uri: "demo://no/such/thing" }).catch((e) => e);
    const directly = await direct.readResource({ uri: "demo://no/such/thing" }).catch((e) => e);
    expect(viaBroker.code).toBe(directly.code);
    expect(viaBroker.message).toBe(directly.message);
    await client.close();
  });

  it("says which sources there are for an unknown name, and the one a typo likely meant", async () => {
    const initialize = (name: string) =>
      fetch(`${broker.url}/mcp/${name}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
      });
    const res = await initialize("nope");
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.message).toBe(
      'no source named "nope"; the sources are everything, fx',
    );
    expect(((await (await initialize("evrything")).json()) as any).error.message).toBe(
      'no source named "evrything" (did you mean everything?); the sources are everything, fx',
    );
  });
});

describe("list_changed from a backend", () => {
  it("reaches the clients of the source's endpoint and of the aggregated /mcp", async () => {
    const own = await open("fx");
    const aggregated = await connectHttp(broker.url);
    const seen = { own: 0, aggregated: 0 };
    own.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (seen.own += 1));
    aggregated.setNotificationHandler(
      ResourceListChangedNotificationSchema,
      () => void (seen.aggregated += 1),
    );
    await own.callTool({ name: "add_resource", arguments: { uri: "test://late" } });
    await expect.poll(() => seen).toEqual({ own: 1, aggregated: 1 });
    expect((await own.listResources()).resources.map((r) => r.uri)).toContain("test://late");
    expect((await aggregated.listResources()).resources.map((r) => r.uri)).toContain(
      "mcp-broker://fx/test%3A%2F%2Flate",
    );
    await Promise.all([own.close(), aggregated.close()]);
  });
});

describe("two clients on one shared backend", () => {
  it("each gets its own sampling request, and only its own", async () => {
    const a = await open("fx", sampling);
    const b = await open("fx", sampling);
    const asked = { a: 0, b: 0 };
    a.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.a += 1;
      return { role: "assistant", content: { type: "text", text: "from a" }, model: "test" };
    });
    b.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.b += 1;
      return { role: "assistant", content: { type: "text", text: "from b" }, model: "test" };
    });
    expect(textOf(await a.callTool({ name: "ask", arguments: { question: "?" } }))).toBe(
      "answer: from a",
    );
    expect(textOf(await b.callTool({ name: "ask", arguments: { question: "?" } }))).toBe(
      "answer: from b",
    );
    expect(asked).toEqual({ a: 1, b: 1 });
    await Promise.all([a.close(), b.close()]);
  });

  it("each gets its own progress", async () => {
    const a = await open("everything", sampling);
    const b = await open("everything", sampling);
    const seen = { a: [] as number[], b: [] as number[] };
    const run = (c: Client, into: number[], steps: number) =>
      c.callTool(
        { name: "trigger-long-running-operation", arguments: { duration: 0.4, steps } },
        undefined,
        { onprogress: (p) => into.push(p.total ?? -1) },
      );
    await Promise.all([run(a, seen.a, 4), run(b, seen.b, 2)]);
    expect(seen.a.length).toBeGreaterThan(0);
    expect(seen.b.length).toBeGreaterThan(0);
    expect(new Set(seen.a)).toEqual(new Set([4]));
    expect(new Set(seen.b)).toEqual(new Set([2]));
    await Promise.all([a.close(), b.close()]);
  });

  it("each gets updates of the resources it subscribed to, and no others", async () => {
    const a = await open("fx");
    const b = await open("fx");
    const updates = { a: [] as string[], b: [] as string[] };
    a.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n) => void updates.a.push(n.params.uri),
    );
    b.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n) => void updates.b.push(n.params.uri),
    );
    await a.subscribeResource({ uri: "test://a" });
    await b.subscribeResource({ uri: "test://b" });
    expect(textOf(await b.callTool({ name: "touch", arguments: { uri: "test://a" } }))).toBe(
      "sent",
    );
    await expect.poll(() => updates.a).toEqual(["test://a"]);
    expect(updates.b).toEqual([]);
    await a.unsubscribeResource({ uri: "test://a" });
    expect(textOf(await a.callTool({ name: "touch", arguments: { uri: "test://a" } }))).toBe(
      "nobody subscribed",
    );
    await Promise.all([a.close(), b.close()]);
  });

  it("a log raised during a call reaches the caller only", async () => {
    const a = await open("fx");
    const b = await open("fx");
    const logs = { a: [] as unknown[], b: [] as unknown[] };
    a.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (n) => void logs.a.push(n.params.data),
    );
    b.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (n) => void logs.b.push(n.params.data),
    );
    await b.setLoggingLevel("debug");
    await a.callTool({ name: "log", arguments: { message: "for a" } });
    await expect.poll(() => logs.a).toEqual(["for a"]);
    expect(logs.b).toEqual([]);
    await Promise.all([a.close(), b.close()]);
  });

  it("a cancelled call is cancelled at the backend, and the other client's call goes on", async () => {
    const a = await open("fx");
    const b = await open("fx");
    const before = Number(textOf(await a.callTool({ name: "cancelled_count", arguments: {} })));
    const controller = new AbortController();
    const { promise: started, resolve: onStart } = Promise.withResolvers<void>();
    const cancelled = a
      .callTool({ name: "sleep", arguments: { ms: 10_000 } }, undefined, {
        signal: controller.signal,
        onprogress: () => onStart(),
      })
      .catch((e) => e);
    const other = b.callTool({ name: "sleep", arguments: { ms: 300 } });
    await started;
    controller.abort("changed my mind");
    expect(await cancelled).toBeInstanceOf(Error);
    expect(textOf(await other)).toBe("slept 300");
    await expect
      .poll(async () =>
        Number(textOf(await b.callTool({ name: "cancelled_count", arguments: {} }))),
      )
      .toBe(before + 1);
    await Promise.all([a.close(), b.close()]);
  });

  it("a client that disconnects cancels its calls in flight", async () => {
    const a = await open("fx");
    const b = await open("fx");
    const before = Number(textOf(await b.callTool({ name: "cancelled_count", arguments: {} })));
    const { promise: started, resolve: onStart } = Promise.withResolvers<void>();
    void a
      .callTool({ name: "sleep", arguments: { ms: 10_000 } }, undefined, {
        onprogress: () => onStart(),
      })
      .catch(() => undefined);
    await started;
    await (a.transport as unknown as { terminateSession(): Promise<void> }).terminateSession();
    await a.close();
    await expect
      .poll(async () =>
        Number(textOf(await b.callTool({ name: "cancelled_count", arguments: {} }))),
      )
      .toBe(before + 1);
    await b.close();
  });
});
