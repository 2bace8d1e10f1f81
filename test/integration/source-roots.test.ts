import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  capturingLogger,
  everythingCommand,
  FIXTURE,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";

const filesystemServer = fileURLToPath(
  new URL(
    "../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
    import.meta.url,
  ),
);
const modernServer = FIXTURE.replace("fixture-server.mjs", "conformance-server-2026.mjs");

/** A folder of its own, as the filesystem server names it (symlinks resolved). */
const folder = (prefix: string) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));
const given = folder("mcp-broker-root-given-");
const started = folder("mcp-broker-root-started-");
const callerRoot = "file:///the/caller/own";

let broker: TestBroker;
const logged = capturingLogger();
const stderrOf = (source: string) =>
  logged
    .lines()
    .filter((l) => l.source === source && typeof l.stderr === "string")
    .map((l) => l.stderr as string);

beforeAll(async () => {
  broker = await startBroker(
    {
      registry: { predefined: false },
      tree: [
        {
          path: "/given",
          source: { backend: "stdio", command: everythingCommand(), roots: [given] },
        },
        { path: "/asks", source: { backend: "stdio", command: everythingCommand() } },
        {
          path: "/modern",
          source: {
            backend: "stdio",
            command: [process.execPath, modernServer, "--only-2026"],
            roots: [given],
          },
        },
        {
          path: "/bare",
          source: {
            backend: "stdio",
            command: [process.execPath, filesystemServer],
            roots: [given],
          },
        },
        {
          path: "/files",
          source: {
            backend: "stdio",
            command: [process.execPath, filesystemServer, started],
            roots: [given],
          },
        },
      ],
    },
    { log: logged.log },
  );
});
afterAll(async () => {
  await broker?.close();
});

/** What server-filesystem at `source` allows, once it has said it took its roots. */
async function allowedOnceUpdated(source: string): Promise<string> {
  await vi.waitFor(
    () => expect(stderrOf(source).join("\n")).toContain("Updated allowed directories"),
    { timeout: 20_000 },
  );
  const rest = await broker.post("/meta_call", {
    path: `${source}/list_allowed_directories`,
    args: {},
  });
  return textOf(rest.body.output);
}

/** An SDK client offering roots of its own, counting how often it is asked for them. */
async function clientWithRoots(path: string) {
  const client = await connectHttp(
    broker.url,
    {},
    {
      path,
      client: { capabilities: { roots: { listChanged: true } } },
    },
  );
  const asked = { times: 0 };
  client.setRequestHandler(ListRootsRequestSchema, () => {
    asked.times += 1;
    return { roots: [{ uri: callerRoot, name: "own" }] };
  });
  return { client, asked };
}

describe("a source's roots", () => {
  it("answer the backend's roots/list, whoever calls, without asking the caller", async () => {
    const { client, asked } = await clientWithRoots("/mcp/given");
    const listed = textOf(await client.callTool({ name: "get-roots-list", arguments: {} }));
    expect(listed).toContain(pathToFileURL(given).href);
    expect(listed).not.toContain(callerRoot);
    expect(asked.times).toBe(0);
    await client.close();

    // A caller that cannot be asked anything (REST) gets the same roots.
    const rest = await broker.post("/meta_call", { path: "/given/get-roots-list", args: {} });
    expect(rest.status).toBe(200);
    expect(textOf(rest.body.output)).toContain(pathToFileURL(given).href);
  });

  it("answer a 2026-07-28 backend's input request for roots in the broker", async () => {
    const rest = await broker.post("/meta_call", {
      path: "/modern/test_input_required_result_list_roots",
      args: {},
    });
    expect(rest.status).toBe(200);
    expect(textOf(rest.body.output)).toBe(`Client exposed 1 root(s): ${pathToFileURL(given).href}`);
  });

  it("are what server-filesystem serves, in place of its command line's folder", async () => {
    const allowed = await allowedOnceUpdated("/files");
    expect(allowed).toContain(given);
    expect(allowed).not.toContain(started);
  });

  it("are all that a server-filesystem started with no folder has to serve", async () => {
    expect(await allowedOnceUpdated("/bare")).toBe(`Allowed directories:\n${given}`);
  });

  it("left unset, a call's roots/list asks its caller, and one outside calls says what to set", async () => {
    await vi.waitFor(
      () =>
        expect(stderrOf("/asks").join("\n")).toContain(
          "can only be relayed during a call from a client; the source's `roots` setting gives this backend roots of its own",
        ),
      { timeout: 20_000 },
    );
    const { client, asked } = await clientWithRoots("/mcp/asks");
    const listed = textOf(await client.callTool({ name: "get-roots-list", arguments: {} }));
    expect(listed).toContain(callerRoot);
    expect(asked.times).toBe(1);
    await client.close();
  });
});
