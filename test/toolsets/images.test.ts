import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp } from "../helpers/mcp-client.js";

/** A 1×1 PNG, as both providers send images: base64. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const KEY = "sk-test-images-key";

interface Seen {
  path: string;
  authorization?: string | undefined;
  body: Record<string, unknown>;
}
const seen: Seen[] = [];

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
}

/**
 * Stand-ins for the two providers' real APIs on loopback: OpenAI's
 * `POST /v1/images/generations` (b64_json, its error object, a content
 * policy refusal) and AUTOMATIC1111's `POST /sdapi/v1/txt2img` (images[],
 * its error body); a prompt with "hang" never gets an answer.
 */
let server: Server;
let url: string;
const brokers: TestBroker[] = [];
let openai: TestBroker;
let a1111: TestBroker;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    seen.push({ path: req.url!, authorization: req.headers.authorization, body });
    const prompt = String(body.prompt);
    if (prompt.includes("hang")) return;
    res.setHeader("content-type", "application/json");
    if (req.url === "/v1/images/generations") {
      if (req.headers.authorization !== `Bearer ${KEY}`) {
        res.writeHead(401);
        return res.end(
          JSON.stringify({
            error: { message: "Incorrect API key provided", type: "invalid_request_error" },
          }),
        );
      }
      if (prompt.includes("forbidden")) {
        res.writeHead(400);
        return res.end(
          JSON.stringify({
            error: {
              message: "Your request was rejected as a result of our safety system.",
              type: "invalid_request_error",
              code: "content_policy_violation",
            },
          }),
        );
      }
      return res.end(
        JSON.stringify({
          created: 1700000000,
          data: [{ b64_json: PNG, revised_prompt: `${prompt}, refined` }],
        }),
      );
    }
    if (req.url === "/sdapi/v1/txt2img") {
      if (prompt.includes("broken")) {
        res.writeHead(500);
        return res.end(
          JSON.stringify({
            error: "OutOfMemoryError",
            detail: "",
            body: "",
            errors: "CUDA out of memory",
          }),
        );
      }
      return res.end(JSON.stringify({ images: [PNG], parameters: body, info: "{}" }));
    }
    res.writeHead(404);
    res.end(JSON.stringify({ detail: "Not Found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.MCP_BROKER_TEST_IMAGES_KEY = KEY;
  openai = await startBroker({
    tree: [{ path: "/img", source: { backend: "builtin", toolset: "image_generator" } }],
    toolsets: {
      images: {
        provider: "openai",
        url,
        model: "dall-e-2",
        api_key_env: "MCP_BROKER_TEST_IMAGES_KEY",
        timeout_s: 0.5,
      },
    },
  });
  a1111 = await startBroker({
    tree: [],
    toolsets: { images: { provider: "automatic1111", url: `${url}/` } },
  });
  brokers.push(openai, a1111);
});
afterAll(async () => {
  await Promise.all(brokers.map((b) => b.close()));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let nextId = 1;
async function generate(broker: TestBroker, args: object) {
  return (
    await broker.post("/rpc", {
      jsonrpc: "2.0",
      method: "tools/call",
      params: { tool_name: "image_generator", function_name: "generate_image", arguments: args },
      id: nextId++,
    })
  ).body;
}

describe("image_generator with an OpenAI-compatible images API", () => {
  it("returns the image as base64 data with its MIME type, style and size mapped", async () => {
    const { result } = await generate(openai, {
      prompt: "a lighthouse",
      style: "cartoon",
      size: "256x256",
    });
    expect(result.data).toMatchObject({
      image: { data: PNG, mime_type: "image/png" },
      prompt: "a lighthouse",
      style: "cartoon",
      size: "256x256",
      provider: "openai",
    });
    const request = seen.at(-1)!;
    expect(request).toMatchObject({
      path: "/v1/images/generations",
      authorization: `Bearer ${KEY}`,
    });
    expect(request.body).toMatchObject({
      model: "dall-e-2",
      size: "256x256",
      n: 1,
      response_format: "b64_json",
    });
    expect(request.body.prompt).toContain("cartoon");
  });

  it("uses the protocol's defaults: realistic, 512x512", async () => {
    const { result } = await generate(openai, { prompt: "a harbour" });
    expect(result.data).toMatchObject({ style: "realistic", size: "512x512" });
    expect(seen.at(-1)!.body.size).toBe("512x512");
  });

  it("is image content for MCP clients", async () => {
    const client = await connectHttp(openai.url, {}, { path: "/mcp/img" });
    try {
      const result = await client.callTool({
        name: "generate_image",
        arguments: { prompt: "a fox" },
      });
      const content = result.content as {
        type: string;
        data?: string;
        mimeType?: string;
        text?: string;
      }[];
      expect(content[0]).toEqual({ type: "image", data: PNG, mimeType: "image/png" });
      expect(content[1]!.text).not.toContain(PNG);
    } finally {
      await client.close();
    }
  });

  it("passes the provider's refusal on as -32004, and its silence as -32006", async () => {
    const refused = await generate(openai, { prompt: "something forbidden" });
    expect(refused.error).toMatchObject({ code: -32004 });
    expect(refused.error.data.details).toContain("rejected as a result of our safety system");
    const started = Date.now();
    const hung = await generate(openai, { prompt: "hang on" });
    expect(hung.error).toMatchObject({ code: -32006 });
    expect(hung.error.data.details).toContain("no answer within 0.5 s");
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe("image_generator with AUTOMATIC1111", () => {
  it("asks txt2img with width, height and the style in the prompt", async () => {
    const { result } = await generate(a1111, {
      prompt: "a castle",
      style: "abstract",
      size: "1024x1024",
    });
    expect(result.data).toMatchObject({
      image: { data: PNG, mime_type: "image/png" },
      provider: "automatic1111",
    });
    const request = seen.at(-1)!;
    expect(request.path).toBe("/sdapi/v1/txt2img");
    expect(request.body).toMatchObject({ width: 1024, height: 1024 });
    expect(request.body.prompt).toContain("abstract");
  });

  it("says the engine failed: -32006 with its status", async () => {
    const { error } = await generate(a1111, { prompt: "broken dreams" });
    expect(error).toMatchObject({ code: -32006 });
    expect(error.data.details).toContain("answered HTTP 500: OutOfMemoryError");
  });
});

describe("image_generator without a provider", () => {
  it("answers -32006 saying how to configure one, never a made-up picture", async () => {
    const bare = await startBroker({ tree: [] });
    brokers.push(bare);
    const { error } = await generate(bare, { prompt: "anything" });
    expect(error).toMatchObject({ code: -32006 });
    expect(error.data.details).toContain("set toolsets.images");
  });
});
