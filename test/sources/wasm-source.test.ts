import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";
import { testComponent } from "../helpers/wasm-components.js";

const host = mkdtempSync(join(tmpdir(), "mcp-broker-wasm-"));
const granted = join(host, "granted");
const secret = join(host, "secret.txt");
mkdirSync(granted);
writeFileSync(join(granted, "hello.txt"), "hello from the host\n");
writeFileSync(secret, "not for components\n");
symlinkSync(secret, join(granted, "escape.txt"));
const cacheDir = join(host, "cache");

let broker: TestBroker;
let every: Client;
let faulty: Client;

beforeAll(async () => {
  process.env.WASM_TEST_VISIBLE = "visible";
  process.env.WASM_TEST_HIDDEN = "hidden";
  const [everything, faultyWasm, files] = await Promise.all([
    testComponent("everything"),
    testComponent("faulty"),
    testComponent("files"),
  ]);
  const wasm = (component: string, extra: Record<string, unknown> = {}) => ({
    backend: "wasm",
    component,
    cache_dir: cacheDir,
    max_memory_mb: 128,
    ...extra,
  });
  broker = await startBroker({
    tree: [
      { path: "/every", source: wasm(everything) },
      { path: "/faulty", source: wasm(faultyWasm, { timeout_ms: 1500 }) },
      { path: "/faulty_small", source: wasm(faultyWasm, { max_memory_mb: 32 }) },
      { path: "/faulty_pair", source: wasm(faultyWasm, { timeout_ms: 1500, instances: 2 }) },
      {
        path: "/files_granted",
        source: wasm(files, {
          permissions: { dirs: { "/data": granted }, env: ["WASM_TEST_VISIBLE"] },
        }),
      },
      { path: "/files_denied", source: wasm(files) },
    ],
  });
  every = await connectHttp(broker.url, {}, { path: "/mcp/every" });
  faulty = await connectHttp(broker.url, {}, { path: "/mcp/faulty" });
}, 180_000);

afterAll(async () => {
  await every?.close();
  await faulty?.close();
  await broker?.close();
  delete process.env.WASM_TEST_VISIBLE;
  delete process.env.WASM_TEST_HIDDEN;
});

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args });
const metaCall = (path: string, args: unknown = {}) => broker.post("/meta_call", { path, args });

describe("a WebAssembly component as a source", () => {
  it("serves the component's name, instructions and capabilities, without notifications it cannot send", () => {
    expect(every.getServerVersion()?.name).toBe("everything");
    expect(every.getServerVersion()?.version).toMatch(/^sha256:[0-9a-f]{12}$/);
    expect(every.getInstructions()).toBe("Exercises every part of the router interface.");
    const caps = every.getServerCapabilities()!;
    expect(caps.tools).toBeDefined();
    expect(caps.resources).toBeDefined();
    expect(caps.prompts).toBeDefined();
    expect(caps.completions).toBeDefined();
    expect(caps.resources?.subscribe).toBeUndefined();
  });

  it("maps tool descriptors: schemas parsed, annotations as hints, the rest in _meta", async () => {
    const { tools } = await every.listTools();
    const echo = tools.find((t) => t.name === "echo")!;
    expect(echo.inputSchema).toEqual({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    });
    expect(echo.outputSchema).toMatchObject({ type: "object" });
    expect(echo.annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
    expect(echo._meta).toEqual({
      "wasix.mcp/streaming": true,
      "wasix.mcp/experimental": false,
      "wasix.mcp/meta": { outputHint: "json", extra: [{ key: "owner", value: "tests" }] },
    });
  });

  it("passes arguments in as JSON and back unchanged, whatever they hold", async () => {
    const message = 'quotes " \\ backslash, \u0000 nul, emoji 🧪, ' + "x".repeat(100_000);
    const result = await every.callTool({ name: "echo", arguments: { message } });
    expect(JSON.parse(textOf(result))).toEqual({ echoed: { message } });
    // The tool declares an output-schema: its JSON text is the structured content.
    expect(result.structuredContent).toEqual({ echoed: { message } });
  });

  it("maps every content variant and its annotations, f32 priorities without float noise", async () => {
    const result = await call(every, "contents");
    expect(result.content).toEqual([
      {
        type: "text",
        text: "plain",
        annotations: {
          audience: ["user", "assistant"],
          priority: 0.1,
          lastModified: "2026-11-23T10:00:00Z",
        },
      },
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav", annotations: { priority: 0.7 } },
      { type: "resource", resource: { uri: "mem://a", mimeType: "text/plain", text: "inside" } },
      { type: "resource", resource: { uri: "mem://b", blob: "AAEC" } },
    ]);
    expect(result._meta).toEqual({ "served-by": "everything" });
    expect(result.isError).toBeFalsy();
  });

  it("delivers a result's progress as progress notifications, in order", async () => {
    const seen: { progress: number; message?: string }[] = [];
    const result = await every.callTool({ name: "progress", arguments: {} }, undefined, {
      onprogress: (p) => seen.push({ progress: p.progress, message: p.message }),
    });
    expect(textOf(result)).toBe("done");
    expect(seen).toEqual([
      { progress: 0.1, message: "a tenth" },
      { progress: 0.3, message: undefined },
      { progress: 3, message: "no number" },
    ]);
  });

  it("maps each tool-error variant to the broker's error kinds", async () => {
    const errorOf = async (tag: string) => {
      const result = await call(every, "fail", { tag });
      expect(result.isError).toBe(true);
      return textOf(result);
    };
    expect(JSON.parse(await errorOf("invalid-parameters"))).toMatchObject({
      error: { kind: "invalid_params", message: "failed as invalid-parameters" },
    });
    expect(JSON.parse(await errorOf("not-found"))).toMatchObject({
      error: { kind: "not_found", message: "failed as not-found" },
    });
    expect(await errorOf("execution-error")).toBe("failed as execution-error");
    expect(await errorOf("schema-error")).toBe("failed as schema-error");
    const soft = await call(every, "soft_error");
    expect(soft).toMatchObject({ isError: true, content: [{ text: "it went wrong, softly" }] });
  });

  it("answers the same through REST's meta_call", async () => {
    const ok = await metaCall("/every/echo", { message: "via rest" });
    expect(ok.status).toBe(200);
    expect(ok.body.output.content[0].text).toBe('{"echoed":{"message":"via rest"}}');
    const invalid = await metaCall("/every/fail", { tag: "invalid-parameters" });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({
      kind: "invalid_params",
      message: "failed as invalid-parameters",
    });
    const missing = await metaCall("/every/fail", { tag: "not-found" });
    expect(missing.status).toBe(404);
    const schema = await metaCall("/every/fail", { tag: "schema-error" });
    expect(schema.body).toMatchObject({ is_error: true });
    expect(JSON.stringify(schema.body)).toContain("failed as schema-error");
  });

  it("lists and reads resources, text and blob, and maps resource errors", async () => {
    const { resources } = await every.listResources();
    expect(resources).toEqual([
      {
        uri: "mem://a",
        name: "a",
        description: "A text",
        mimeType: "text/plain",
        annotations: { priority: 0.2 },
      },
      { uri: "mem://b", name: "b", mimeType: "application/octet-stream" },
    ]);
    expect((await every.readResource({ uri: "mem://a" })).contents).toEqual([
      { uri: "mem://a", mimeType: "text/plain", text: "inside" },
    ]);
    expect((await every.readResource({ uri: "mem://b" })).contents).toEqual([
      { uri: "mem://b", blob: "AAEC" },
    ]);
    await expect(every.readResource({ uri: "mem://nothing" })).rejects.toThrow(
      /no resource mem:\/\/nothing/,
    );
    await expect(every.readResource({ uri: "mem://broken" })).rejects.toThrow(
      /the disk is on fire/,
    );
  });

  it("lists and gets prompts, every message content kind, and maps prompt errors", async () => {
    const { prompts } = await every.listPrompts();
    expect(prompts[0]).toEqual({
      name: "greet",
      description: "A greeting",
      arguments: [{ name: "who", description: "Whom to greet", required: true }],
    });
    const greet = await every.getPrompt({ name: "greet", arguments: { who: "world" } });
    expect(greet.messages).toEqual([
      { role: "user", content: { type: "text", text: "Say hello" } },
      {
        role: "assistant",
        content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      },
      { role: "user", content: { type: "resource", resource: { uri: "mem://a", text: "inside" } } },
    ]);
    await expect(every.getPrompt({ name: "broken" })).rejects.toThrow(/the prompt store is down/);
    await expect(every.getPrompt({ name: "picky" })).rejects.toMatchObject({ code: -32602 });
    await expect(every.getPrompt({ name: "nope" })).rejects.toThrow(/no prompt nope/);
  });

  it("completes an argument through the text completion, one value per text block", async () => {
    const ref = { type: "ref/prompt" as const, name: "greet" };
    const done = await every.complete({ ref, argument: { name: "who", value: "al" } });
    expect(done.completion).toEqual({ values: ["alpha"], total: 1, hasMore: false });
    const all = await every.complete({ ref, argument: { name: "who", value: "" } });
    expect(all.completion.values).toEqual(["alpha", "beta", "gamma"]);
    await expect(
      every.complete({ ref, argument: { name: "who", value: "error" } }),
    ).rejects.toThrow(/completion failed/);
    await expect(every.complete({ ref, argument: { name: "who", value: "soft" } })).rejects.toThrow(
      /soft failure/,
    );
  });
});

describe("a misbehaving component", () => {
  it("keeps state between calls on one instance", async () => {
    const first = Number(textOf(await call(faulty, "count")));
    expect(Number(textOf(await call(faulty, "count")))).toBe(first + 1);
  });

  it("fails a trapping call clearly and serves the next call from a fresh instance", async () => {
    await call(faulty, "count");
    const trapped = await call(faulty, "trap");
    expect(trapped.isError).toBe(true);
    expect(textOf(trapped)).toMatch(/trapped in callTool.*its instance was replaced/);
    expect(textOf(await call(faulty, "count"))).toBe("1");
  });

  it("stops a looping call at its timeout while the broker keeps serving others", async () => {
    const began = Date.now();
    const looping = call(faulty, "loop");
    // The loop runs in its own thread: another source answers meanwhile.
    const meanwhile = await call(every, "echo", { message: "still here" });
    expect(Date.now() - began).toBeLessThan(1000);
    expect(JSON.parse(textOf(meanwhile))).toEqual({ echoed: { message: "still here" } });
    const result = await looping;
    expect(Date.now() - began).toBeGreaterThanOrEqual(1400);
    expect(Date.now() - began).toBeLessThan(5000);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/"kind":"timeout".*did not finish callTool within 1500 ms/);
    expect(textOf(await call(faulty, "count"))).toBe("1");
  });

  it("stops a looping call when its client cancels it, well before the timeout", async () => {
    const cancel = new AbortController();
    const began = Date.now();
    const looping = faulty.callTool({ name: "loop", arguments: {} }, undefined, {
      signal: cancel.signal,
    });
    setTimeout(() => cancel.abort("changed my mind"), 300);
    await expect(looping).rejects.toThrow();
    // The instance that looped was ended and replaced: a fresh one counts from 1.
    expect(textOf(await call(faulty, "count"))).toBe("1");
    expect(Date.now() - began).toBeLessThan(1400);
  });

  it("with two instances, answers from one while the other is busy", async () => {
    const began = Date.now();
    const looping = metaCall("/faulty_pair/loop");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const counted = await metaCall("/faulty_pair/count");
    expect(counted.body.output.content[0].text).toBe("1");
    expect(Date.now() - began).toBeLessThan(1000);
    expect((await looping).body.error.kind).toBe("timeout");
  });

  it("fails a call that exhausts its memory and replaces the instance", async () => {
    // Past its own limit, the guest grows to the process-wide ceiling (the
    // largest limit, 128 MiB here), where allocation fails and the guest traps.
    const result = await metaCall("/faulty_small/hog");
    expect(result.body.error.kind).toBe("execution_failed");
    expect(result.body.error.message).toMatch(
      /ran out of memory in callTool \((1[01]\d|12\d) MiB; max_memory_mb is 32\); its instance was replaced/,
    );
    expect((await metaCall("/faulty_small/count")).body.output.content[0].text).toBe("1");
  });

  it("answers a call that leaves an instance above its own memory limit, then replaces it", async () => {
    const small = await metaCall("/faulty_small/grow");
    expect(small.body.output.content[0].text).toBe("grown");
    expect((await metaCall("/faulty_small/count")).body.output.content[0].text).toBe("1");
    // Within its limit, the same growth keeps the instance.
    await call(faulty, "grow");
    const before = Number(textOf(await call(faulty, "count")));
    expect(Number(textOf(await call(faulty, "count")))).toBe(before + 1);
  });

  it("answers a call to a tool whose schema is not JSON with a schema-error saying so", async () => {
    const tools = (await faulty.listTools()).tools;
    const badJson = tools.find((t) => t.name === "bad_json")!;
    expect(badJson.description).toMatch(/^Unusable: .*input-schema is not valid JSON/);
    const result = await call(faulty, "bad_json");
    expect(result.isError).toBe(true);
    expect(result._meta).toEqual({ "wasix.mcp/error": "schema-error" });
    expect(textOf(result)).toMatch(/^tool bad_json: its input-schema is not valid JSON \(/);
    const notObject = await metaCall("/faulty/not_object");
    expect(notObject.body.is_error).toBe(true);
    expect(JSON.stringify(notObject.body)).toContain("its input-schema is not a JSON object");
    // The tools described right are served as ever.
    expect(textOf(await call(faulty, "count"))).toMatch(/^\d+$/);
  });

  it("fails a call that returns a value the WIT does not allow, and recovers", async () => {
    const result = await call(faulty, "bad_variant");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/its instance was replaced/);
    expect(textOf(await call(faulty, "count"))).toBe("1");
  });

  it("reports the replacements in /healthz", async () => {
    const res = await fetch(`${broker.url}/healthz?details`);
    const body = await res.json();
    expect(JSON.stringify(body)).toMatch(/"restarts":[1-9]/);
  });
});

describe("the sandbox", () => {
  const read = (source: string, path: string) => metaCall(`/${source}/read_file`, { path });

  it("reads a file in a granted folder, under the guest path the config names", async () => {
    const res = await read("files_granted", "/data/hello.txt");
    expect(res.body.output.content[0].text).toBe("hello from the host\n");
    const folders = await metaCall("/files_granted/folders");
    expect(JSON.parse(folders.body.output.content[0].text)).toEqual(["/data"]);
  });

  it("gives a component without grants no folder at all", async () => {
    const folders = await metaCall("/files_denied/folders");
    expect(JSON.parse(folders.body.output.content[0].text)).toEqual([]);
    const res = await read("files_denied", "/data/hello.txt");
    expect(res.body.is_error).toBe(true);
    expect(JSON.stringify(res.body)).toContain("no granted folder holds /data/hello.txt");
  });

  it("keeps a granted component inside its folder: no .., no symlink out", async () => {
    for (const path of ["/data/../secret.txt", "/data/escape.txt", `/data/..${secret}`]) {
      const res = await read("files_granted", path);
      expect(res.body.is_error, path).toBe(true);
      expect(JSON.stringify(res.body)).not.toContain("not for components");
    }
  });

  it("shows a component only the environment variables granted to it", async () => {
    const granted = await metaCall("/files_granted/env");
    expect(JSON.parse(granted.body.output.content[0].text)).toEqual({
      WASM_TEST_VISIBLE: "visible",
    });
    const denied = await metaCall("/files_denied/env");
    expect(JSON.parse(denied.body.output.content[0].text)).toEqual({});
  });
});
