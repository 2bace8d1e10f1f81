import { z } from "zod";
import { BrokerError } from "../../contract/errors.js";
import { ANY_ADDRESS } from "../../net/address-policy.js";
import { guardedRequest, RequestFailed } from "../../net/guarded-request.js";
import { urlUnder } from "../../net/url-under.js";

export type ImageStyle = "realistic" | "artistic" | "cartoon" | "abstract";

export interface ImageRequest {
  readonly prompt: string;
  readonly style: ImageStyle;
  readonly width: number;
  readonly height: number;
  readonly signal: AbortSignal;
}

export interface GeneratedImage {
  /** Base64 of the image bytes. */
  readonly base64: string;
  readonly revisedPrompt?: string | undefined;
}

export interface ImageProviderSettings {
  readonly url: string;
  readonly model?: string | undefined;
  readonly apiKey?: string | undefined;
  readonly timeoutMs: number;
}

/** What each style adds to a prompt, for engines that take the style as words. */
export const STYLE_WORDS: Record<ImageStyle, string> = {
  realistic: "photorealistic, natural light, detailed photograph",
  artistic: "artistic painting, expressive brush strokes",
  cartoon: "cartoon illustration, bold outlines, flat colors",
  abstract: "abstract art, shapes and colors",
};

const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** An image API over HTTP: `openai` (`/v1/images/generations`) or `automatic1111` (`/sdapi/v1/txt2img`). */
export interface ImageProvider {
  readonly name: string;
  generate(request: ImageRequest): Promise<GeneratedImage>;
}

/**
 * POSTs JSON to `path` of the provider and gives back the part of its JSON
 * answer that `answer` accepts, or an error in the broker's terms.
 */
export async function postToProvider<T>(
  provider: string,
  path: string,
  body: unknown,
  answer: z.ZodType<T>,
  settings: ImageProviderSettings,
  signal: AbortSignal,
): Promise<T> {
  const url = urlUnder(settings.url, path);
  const json = await postJson(provider, url, body, settings, signal);
  const parsed = answer.safeParse(json);
  if (!parsed.success) {
    throw new BrokerError(
      "unavailable",
      `the image provider (${provider}) answered ${path} without an image`,
    );
  }
  return parsed.data;
}

async function postJson(
  provider: string,
  url: URL,
  body: unknown,
  settings: ImageProviderSettings,
  signal: AbortSignal,
): Promise<unknown> {
  let answer;
  try {
    answer = await guardedRequest(url.href, {
      method: "POST",
      body: Buffer.from(JSON.stringify(body)),
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        ...(settings.apiKey === undefined ? {} : { authorization: `Bearer ${settings.apiKey}` }),
      },
      policy: ANY_ADDRESS,
      maxBytes: MAX_ANSWER_BYTES,
      signal: AbortSignal.any([signal, AbortSignal.timeout(settings.timeoutMs)]),
    });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    const why =
      err instanceof RequestFailed
        ? err.message
        : `no answer within ${settings.timeoutMs / 1000} s (toolsets.images.timeout_s)`;
    throw new BrokerError(
      "unavailable",
      `the image provider (${provider}) could not be asked: ${why}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.body.toString("utf8"));
  } catch {
    json = undefined;
  }
  if (answer.status === 200 && json !== undefined) return json;
  const said = ProviderError.safeParse(json);
  const message = said.success
    ? typeof said.data.error === "string"
      ? said.data.error
      : (said.data.error?.message ?? said.data.detail ?? said.data.message ?? "")
    : "";
  const what = `the image provider (${provider}) answered HTTP ${answer.status}${message ? `: ${String(message).slice(0, 500)}` : ""}`;
  if (answer.status === 400 || answer.status === 422) throw new BrokerError("invalid_params", what);
  if (answer.status === 429) throw new BrokerError("rate_limited", what, { retry_after_s: 10 });
  throw new BrokerError("unavailable", what);
}

/** The error bodies of OpenAI (`{error: {message}}`) and AUTOMATIC1111 (`{detail}` / `{error, message}`). */
const ProviderError = z.looseObject({
  error: z.union([z.string(), z.looseObject({ message: z.string().optional() })]).optional(),
  detail: z.unknown().optional(),
  message: z.string().optional(),
});
