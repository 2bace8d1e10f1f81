import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { bubblewrap } from "../helpers/bubblewrap.js";

/** The real npm servers the suite uses, each in its sandbox, doing their ordinary work. */
const { why } = bubblewrap();
const serverOf = (pkg: string) =>
  fileURLToPath(
    new URL(`../../node_modules/@modelcontextprotocol/${pkg}/dist/index.js`, import.meta.url),
  );

const files = mkdtempSync(join(tmpdir(), "sandboxed-files-"));
const memory = mkdtempSync(join(tmpdir(), "sandboxed-memory-"));
let broker: TestBroker;

beforeAll(async () => {
  if (why) return;
  writeFileSync(join(files, "hello.txt"), "hello from a granted folder");
  broker = await startBroker({
    registry: { predefined: false },
    pinning: "off",
    sandbox: { default: true },
    tree: [
      { path: "/everything", source: { backend: "stdio", command: everythingCommand() } },
      {
        path: "/memory",
        source: {
          backend: "stdio",
          command: [process.execPath, serverOf("server-memory")],
          env: { MEMORY_FILE_PATH: join(memory, "graph.jsonl") },
          sandbox: { fs: { write: [memory] } },
        },
      },
      {
        path: "/files",
        source: {
          backend: "stdio",
          command: [process.execPath, serverOf("server-filesystem"), files],
          sandbox: { fs: { read: [files] } },
        },
      },
    ],
  });
}, 60_000);
afterAll(() => broker?.close());

const call = async (path: string, args: Record<string, unknown>) =>
  (await broker.post("/meta_call", { path, args })).body;

describe(`the npm servers of the suite, sandboxed ${why}`, () => {
  it.runIf(why === "")("server-everything echoes and adds", async () => {
    expect((await call("/everything/echo", { message: "boxed" })).output.content[0].text).toBe(
      "Echo: boxed",
    );
    expect((await call("/everything/get-sum", { a: 2, b: 3 })).is_error).toBe(false);
  });

  it.runIf(why === "")("server-memory keeps its graph in the folder it may write", async () => {
    const made = await call("/memory/create_entities", {
      entities: [{ name: "sandbox", entityType: "thing", observations: ["holds"] }],
    });
    expect(made.is_error).toBe(false);
    const read = await call("/memory/read_graph", {});
    expect(JSON.stringify(read.output)).toContain("sandbox");
  });

  it.runIf(why === "")(
    "server-filesystem reads its granted folder, and cannot write it",
    async () => {
      const read = await call("/files/read_text_file", { path: join(files, "hello.txt") });
      expect(JSON.stringify(read.output)).toContain("hello from a granted folder");
      const written = await call("/files/write_file", {
        path: join(files, "new.txt"),
        content: "x",
      });
      expect(written.is_error).toBe(true);
      expect(JSON.stringify(written.output)).toMatch(/EROFS|read-only/i);
    },
  );

  it.runIf(why === "")("meta_desc shows each source's sandbox", async () => {
    const described = await broker.post("/meta_desc", { path: "/files" });
    expect(described.body.source.sandbox).toMatchObject({
      read: [files],
      write: [],
      network: "none",
      memory_mb: 512,
    });
    expect(
      (await broker.post("/meta_desc", { path: "/everything" })).body.source.sandbox,
    ).toMatchObject({
      network: "none",
    });
  });
});
