import { z } from "zod";
import {
  postToProvider,
  STYLE_WORDS,
  type GeneratedImage,
  type ImageProvider,
  type ImageProviderSettings,
  type ImageRequest,
} from "./image-provider.js";

const Answer = z.looseObject({ images: z.array(z.string()).min(1) });

/** The AUTOMATIC1111 Stable Diffusion web UI API (`POST /sdapi/v1/txt2img`). */
export class Automatic1111 implements ImageProvider {
  readonly name = "automatic1111";

  constructor(private readonly settings: ImageProviderSettings) {}

  async generate({ prompt, style, width, height, signal }: ImageRequest): Promise<GeneratedImage> {
    const answer = await postToProvider(
      this.name,
      "sdapi/v1/txt2img",
      {
        prompt: `${prompt}, ${STYLE_WORDS[style]}`,
        negative_prompt: style === "realistic" ? "cartoon, drawing, painting" : "",
        width,
        height,
        steps: 20,
        batch_size: 1,
        n_iter: 1,
      },
      Answer,
      this.settings,
      signal,
    );
    // Some versions prefix the base64 with a data: URL header.
    return { base64: answer.images[0]!.replace(/^data:[^,]*,/, "") };
  }
}
