import type { z } from "zod";
import type { Logger } from "../../contract/log.js";
import { defineToolsetKind } from "../toolset-kind.js";
import { Automatic1111 } from "./automatic1111.js";
import { ImageGenerator } from "./image-generator.js";
import { OpenAiImages } from "./openai-images.js";
import { ImagesSettings } from "./settings.js";

/** The predefined `image_generator`: an OpenAI-style or AUTOMATIC1111 engine, when one is configured. */
export const imagesKind = defineToolsetKind({
  name: "image_generator",
  settings: { key: "images", schema: ImagesSettings },
  create: (images, log) => new ImageGenerator(imageProvider(images, log)),
});

function imageProvider(images: z.infer<typeof ImagesSettings> | undefined, log: Logger) {
  if (images === undefined) return undefined;
  if (images.api_key_env !== undefined && process.env[images.api_key_env] === undefined) {
    log.warn(
      { variable: images.api_key_env },
      "toolsets.images.api_key_env names a variable that is not set; the provider is asked without a key",
    );
  }
  const settings = {
    url: images.url,
    model: images.model,
    apiKey: images.api_key_env === undefined ? undefined : process.env[images.api_key_env],
    timeoutMs: (images.timeout_s ?? 120) * 1000,
  };
  return images.provider === "openai" ? new OpenAiImages(settings) : new Automatic1111(settings);
}
