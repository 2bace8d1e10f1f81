import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Words that mean one thing, each group one dimension: what a real
 * embedding model learns, small enough to write down. Any other word gets a
 * dimension of its own by hash, weaker.
 */
const CONCEPTS = [
  ["weather", "forecast", "rain", "meteorological", "outlook", "temperature", "sunny", "umbrella"],
  ["translate", "translation", "language", "german", "french", "spanish", "english"],
  ["picture", "image", "photo", "drawing", "illustration"],
  ["message", "chat", "post", "slack", "channel", "announce"],
];
const DIMENSIONS = 64;

export interface EmbeddingsServer {
  readonly url: string;
  /** Texts embedded so far, and the requests as they came. */
  readonly texts: string[];
  readonly requests: { authorization?: string | undefined; model: unknown; input: unknown }[];
  /** Answer every request with this HTTP status (500: a broken engine), or normally. */
  failWith(status: number | undefined): void;
  close(): Promise<void>;
}

function vectorOf(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const concept = CONCEPTS.findIndex((c) => c.includes(word));
    if (concept >= 0) vector[concept]! += 1;
    else {
      let h = 0;
      for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
      vector[CONCEPTS.length + (h % (DIMENSIONS - CONCEPTS.length))]! += 0.3;
    }
  }
  return vector;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The OpenAI embeddings API on loopback (`POST /v1/embeddings`, the wire
 * shape local engines serve too), standing in for a model that cannot be
 * downloaded here.
 */
export async function startEmbeddingsServer(): Promise<EmbeddingsServer> {
  const texts: string[] = [];
  const requests: EmbeddingsServer["requests"] = [];
  let failing: number | undefined;
  const server = createServer((req, res) => {
    void body(req).then((raw) => {
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
      const input = Array.isArray(parsed.input)
        ? (parsed.input as string[])
        : [String(parsed.input)];
      texts.push(...input);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          data: input.map((text, index) => ({
            object: "embedding",
            index,
            embedding: vectorOf(text),
          })),
          model: parsed.model,
          usage: { prompt_tokens: input.length, total_tokens: input.length },
        }),
      );
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
