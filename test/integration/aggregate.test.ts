import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  everythingCommand,
  fixtureCommand,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";
import { connectHttp, connectStdio, textOf } from "../helpers/mcp-client.js";

let broker: TestBroker;
let client: Client;
let everything: Client;

beforeAll(async () => {
  broker = await startBroker({
    tree: [
      {
        path: "/demo",
        source: { backend: "stdio", command: everythingCommand(), name: "everything" },
      },
      { path: "/fx", source: { backend: "stdio", command: fixtureCommand() } },
    ],
  });
  client = await connectHttp(broker.url);
  everything = await connectStdio(everythingCommand());
});
afterAll(async () => {
  await client?.close();
  await everything?.close();
  await broker?.close();
});

describe("resources and prompts of every source in the aggregated /mcp", () => {
  it("lists the resources of all sources under qualified, unique names and URIs", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(new Set(uris).size).toBe(uris.length);
    expect(uris).toContain("mcp-broker://fx/test%3A%2F%2Fa");
    const own = (await everything.listResources()).resources;
    expect(resources.filter((r) => r.uri.startsWith("mcp-broker://everything/"))).toHaveLength(
      own.length,
    );
    expect(resources.find((r) => r.uri === "mcp-broker://fx/test%3A%2F%2Fa")!.name).toBe(
      "fx__note-a",
    );
  });

  it("reads a resource by its qualified URI, contents as the source gave them", async () => {
    const own = (await everything.listResources()).resources[0]!;
    const read = await client.readResource({
      uri: `mcp-broker://everything/${encodeURIComponent(own.uri)}`,
    });
    const direct = await everything.readResource({ uri: own.uri });
    expect(
      read.contents.map((c) => ({
        ...c,
        uri: decodeURIComponent(c.uri.replace("mcp-broker://everything/", "")),
      })),
    ).toEqual(direct.contents);
  });

  it("qualifies templates so that an expanded one can be read", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.length).toBeGreaterThan(0);
    for (const t of resourceTemplates)
      expect(t.uriTemplate).toMatch(/^mcp-broker:\/\/(everything|fx)\//);
  });

  it("lists and gets prompts by qualified name", async () => {
    const { prompts } = await client.listPrompts();
    const own = (await everything.listPrompts()).prompts;
    expect(prompts.map((p) => p.name).sort()).toEqual(
      own.map((p) => `everything__${p.name}`).sort(),
    );
    const simple = own.find((p) => !p.arguments?.some((a) => a.required))!;
    expect(await client.getPrompt({ name: `everything__${simple.name}` })).toEqual(
      await everything.getPrompt({ name: simple.name }),
    );
  });

  it("sends updates of a subscribed resource under its qualified URI", async () => {
    const updates: string[] = [];
    client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n) => void updates.push(n.params.uri),
    );
    await client.subscribeResource({ uri: "mcp-broker://fx/test%3A%2F%2Fa" });
    const touched = await client.callTool({
      name: "meta_call",
      arguments: { path: "/fx/touch", args: { uri: "test://a" } },
    });
    expect(textOf(touched)).toContain("sent");
    await expect.poll(() => updates).toEqual(["mcp-broker://fx/test%3A%2F%2Fa"]);
  });

  it("refuses URIs and names that are not qualified, with -32602 saying where to look", async () => {
    await expect(client.readResource({ uri: "test://a" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("resources/list"),
    });
    await expect(client.getPrompt({ name: "nope" })).rejects.toMatchObject({ code: -32602 });
    await expect(client.readResource({ uri: "mcp-broker://ghost/x" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('no source named "ghost"'),
    });
  });
});
