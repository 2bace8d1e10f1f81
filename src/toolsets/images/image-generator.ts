import { BrokerError } from "../../contract/errors.js";
import type { HealthReport, ServiceCall } from "../../registry/tool-service.js";
import type { BuiltinToolset } from "../builtin-toolset.js";
import { IMAGE_GENERATOR } from "./definition.js";
import type { ImageProvider, ImageStyle } from "./image-provider.js";

/**
 * `generate_image` through the configured provider. Its `data` holds the
 * image as `{image: {data, mime_type}}` (base64), which MCP clients get as
 * image content. Without a provider a call says how to configure one:
 * never a made-up picture.
 */
export class ImageGenerator implements BuiltinToolset {
  readonly definition = IMAGE_GENERATOR;

  constructor(private readonly provider: ImageProvider | undefined) {}

  async call({ functionName, args, signal }: ServiceCall): Promise<unknown> {
    if (functionName !== "generate_image") {
      throw new BrokerError("not_found", `the image generator has no function "${functionName}"`, {
        function: functionName,
      });
    }
    if (!this.provider) {
      throw new BrokerError(
        "unavailable",
        'no image provider is configured: set toolsets.images to {"provider": "openai", "url": …} (an OpenAI-compatible images API) or {"provider": "automatic1111", "url": …}',
      );
    }
    const prompt = String(args.prompt).trim();
    if (prompt === "")
      throw new BrokerError("invalid_params", "prompt is empty; describe the image");
    const style = (typeof args.style === "string" ? args.style : "realistic") as ImageStyle;
    const size = typeof args.size === "string" ? args.size : "512x512";
    const [width, height] = size.split("x").map(Number) as [number, number];
    const image = await this.provider.generate({ prompt, style, width, height, signal });
    const mimeType = mimeTypeOf(Buffer.from(image.base64.slice(0, 64), "base64"));
    if (!mimeType) {
      throw new BrokerError(
        "unavailable",
        `the image provider (${this.provider.name}) sent data that is not an image`,
      );
    }
    return {
      image: { data: image.base64, mime_type: mimeType },
      prompt,
      style,
      size,
      provider: this.provider.name,
      ...(image.revisedPrompt === undefined ? {} : { revised_prompt: image.revisedPrompt }),
    };
  }

  async check(): Promise<HealthReport> {
    return this.provider
      ? { healthy: true }
      : { healthy: false, lastError: "no image provider is configured" };
  }
}

/** PNG, JPEG, WebP or GIF from the first bytes. */
function mimeTypeOf(head: Buffer): string | undefined {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (
    head.subarray(0, 4).toString("latin1") === "RIFF" &&
    head.subarray(8, 12).toString("latin1") === "WEBP"
  )
    return "image/webp";
  if (head.subarray(0, 4).toString("latin1") === "GIF8") return "image/gif";
  return undefined;
}
