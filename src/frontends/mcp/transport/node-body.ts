import type { IncomingMessage } from "node:http";
import { bodyTooLarge } from "../../http/body-limit/index.js";

/**
 * A request's body as text, read from Node's own stream: a web `Request`'s
 * body goes through a web ReadableStream made for it, which on a relay's hot
 * path costs more than the rest of the read. Bounded by `maxBytes` as it
 * arrives (a `Content-Length` was checked already by the body limit).
 */
export async function nodeBodyText(incoming: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw bodyTooLarge(maxBytes);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
}
