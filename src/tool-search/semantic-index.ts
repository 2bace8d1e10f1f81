import { createHash } from "node:crypto";
import type { Logger } from "../contract/log.js";
import type { StateStore } from "../state/store.js";
import type { EmbeddingsClient } from "./embeddings-client.js";
import type { SearchableTool } from "./searchable-tool.js";

/** Vectors are kept this long in the state store: a restart or another instance reuses them. */
const VECTOR_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const BATCH = 64;
const MAX_TEXT_CHARS = 2000;
const QUERY_CACHE = 256;

export interface SemanticHit {
  readonly path: string;
  readonly score: number;
}

/**
 * Embeddings of the tools, for ranking by meaning beside the words. A tool's
 * vector is keyed by the hash of the text embedded, in the state store, so a
 * tool that did not change is never embedded twice, here or on another
 * instance. Tools are embedded in the background after a change; until its
 * vector is in, a tool is found by its words alone.
 */
export class SemanticIndex {
  private readonly vectors = new Map<string, { hash: string; vector: Float32Array }>();
  private readonly waiting = new Map<string, { hash: string; text: string }>();
  /** The hash of each tool's current text: a vector that arrives for an older text is dropped. */
  private readonly wanted = new Map<string, string>();
  private readonly queries = new Map<string, Float32Array>();
  private embedding: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: EmbeddingsClient,
    private readonly store: StateStore,
    private readonly log: Logger,
  ) {}

  put(tool: SearchableTool): void {
    const text = embeddedText(tool);
    const hash = createHash("sha256").update(text).digest("hex");
    this.wanted.set(tool.path, hash);
    if (this.vectors.get(tool.path)?.hash === hash) return;
    this.waiting.set(tool.path, { hash, text });
  }

  remove(path: string): void {
    this.vectors.delete(path);
    this.waiting.delete(path);
    this.wanted.delete(path);
  }

  /** Embeds what changed since the last time; resolves when it is in (or failed, logged). */
  flush(): Promise<void> {
    if (this.waiting.size === 0) return this.embedding;
    const batch = [...this.waiting];
    this.waiting.clear();
    this.embedding = this.embedding.then(() =>
      this.embedAll(batch).catch((err: Error) => {
        this.log.warn(
          { err: err.message, tools: batch.length },
          "embedding tools failed; they are found by their words until the next change",
        );
      }),
    );
    return this.embedding;
  }

  /** The tools closest in meaning to the query, best first. */
  async search(query: string, signal?: AbortSignal): Promise<SemanticHit[]> {
    const vector = await this.queryVector(query, signal);
    const hits: SemanticHit[] = [];
    for (const [path, entry] of this.vectors) hits.push({ path, score: dot(vector, entry.vector) });
    return hits.sort((a, b) => b.score - a.score).slice(0, 100);
  }

  private async queryVector(query: string, signal?: AbortSignal): Promise<Float32Array> {
    const known = this.queries.get(query);
    if (known) return known;
    const [vector] = await this.client.embed([query], signal);
    if (this.queries.size >= QUERY_CACHE) this.queries.delete(this.queries.keys().next().value!);
    this.queries.set(query, vector!);
    return vector!;
  }

  private async embedAll(tools: [string, { hash: string; text: string }][]): Promise<void> {
    const missing: [string, { hash: string; text: string }][] = [];
    for (const [path, entry] of tools) {
      const stored = await this.store.get(this.key(entry.hash));
      if (stored) this.keep(path, entry.hash, decode(stored));
      else missing.push([path, entry]);
    }
    for (let i = 0; i < missing.length; i += BATCH) {
      const batch = missing.slice(i, i + BATCH);
      const vectors = await this.client.embed(batch.map(([, e]) => e.text));
      await Promise.all(
        batch.map(async ([path, entry], j) => {
          this.keep(path, entry.hash, vectors[j]!);
          await this.store.set(this.key(entry.hash), encode(vectors[j]!), VECTOR_TTL_MS);
        }),
      );
    }
  }

  private keep(path: string, hash: string, vector: Float32Array): void {
    if (this.wanted.get(path) === hash) this.vectors.set(path, { hash, vector });
  }

  private key(hash: string): string {
    return `search:embedding:${this.client.model}:${hash}`;
  }
}

function embeddedText(tool: SearchableTool): string {
  const text = `${tool.name}: ${tool.description}\nParameters: ${tool.parameters}\nIn: ${tool.context}`;
  return text.slice(0, MAX_TEXT_CHARS);
}

function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

function encode(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

function decode(text: string): Float32Array {
  const bytes = Buffer.from(text, "base64");
  return new Float32Array(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  );
}
