import { z } from "zod";
import { HostAllowlist } from "../net/host-allowlist.js";
import { guardedRequest, RequestFailed } from "../net/guarded-request.js";

/** Where and how to ask for embeddings: any OpenAI-compatible `/v1/embeddings`. */
export interface EmbeddingsSettings {
  /** The endpoint itself, such as `http://127.0.0.1:11434/v1/embeddings`. */
  readonly url: string;
  readonly model: string;
  readonly apiKey?: string | undefined;
  readonly timeoutMs: number;
}

const EmbeddingsAnswer = z.object({
  data: z.array(z.object({ index: z.int().nonnegative(), embedding: z.array(z.number()) })),
});

const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * A client of the OpenAI embeddings API (`POST {model, input: [texts]}` →
 * `{data: [{index, embedding}]}`), which local engines (Ollama, llama.cpp,
 * vLLM, LM Studio, text-embeddings-inference) serve too. Requests go to the
 * configured host only, also after a redirect. Vectors come back normalized.
 */
export class EmbeddingsClient {
  private readonly policy: HostAllowlist;

  constructor(private readonly settings: EmbeddingsSettings) {
    this.policy = new HostAllowlist([new URL(settings.url).hostname]);
  }

  get model(): string {
    return this.settings.model;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;
    const answer = await guardedRequest(this.settings.url, {
      method: "POST",
      body: Buffer.from(JSON.stringify({ model: this.settings.model, input: texts })),
      headers,
      policy: this.policy,
      maxBytes: MAX_ANSWER_BYTES,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const where = new URL(this.settings.url).origin;
    if (answer.status !== 200) {
      throw new RequestFailed(`the embeddings endpoint ${where} answered HTTP ${answer.status}`);
    }
    let parsed: z.infer<typeof EmbeddingsAnswer>;
    try {
      parsed = EmbeddingsAnswer.parse(JSON.parse(answer.body.toString("utf8")));
    } catch {
      throw new RequestFailed(
        `the embeddings endpoint ${where} answered something not shaped like {data: [{index, embedding}]}`,
      );
    }
    const vectors = new Array<Float32Array | undefined>(texts.length);
    for (const item of parsed.data) {
      if (item.index < texts.length) vectors[item.index] = normalized(item.embedding);
    }
    if (vectors.some((v) => v === undefined)) {
      throw new RequestFailed(
        `the embeddings endpoint ${where} left out some of the ${texts.length} texts`,
      );
    }
    return vectors as Float32Array[];
  }
}

function normalized(values: readonly number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}
