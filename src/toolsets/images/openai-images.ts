import { z } from "zod";
import {
  postToProvider,
  STYLE_WORDS,
  type GeneratedImage,
  type ImageProvider,
  type ImageProviderSettings,
  type ImageRequest,
} from "./image-provider.js";

const Answer = z.looseObject({
  data: z
    .array(z.looseObject({ b64_json: z.string(), revised_prompt: z.string().optional() }))
    .min(1),
});

/** The OpenAI images API (`POST /v1/images/generations`), as OpenAI and local engines serve it. */
export class OpenAiImages implements ImageProvider {
  readonly name = "openai";

  constructor(private readonly settings: ImageProviderSettings) {}

  async generate({ prompt, style, width, height, signal }: ImageRequest): Promise<GeneratedImage> {
    const answer = await postToProvider(
      this.name,
      "v1/images/generations",
      {
        ...(this.settings.model === undefined ? {} : { model: this.settings.model }),
        prompt: `${prompt} (${STYLE_WORDS[style]})`,
        n: 1,
        size: `${width}x${height}`,
        response_format: "b64_json",
      },
      Answer,
      this.settings,
      signal,
    );
    const first = answer.data[0]!;
    return { base64: first.b64_json, revisedPrompt: first.revised_prompt };
  }
}
