import { z } from "zod";
import { EnvVarName, Seconds } from "../../config/schema.js";

/** `toolsets.images`. */
export const ImagesSettings = z.strictObject({
  provider: z
    .enum(["openai", "automatic1111"])
    .describe(
      "openai: POST {url}/v1/images/generations (also served by local engines); automatic1111: POST {url}/sdapi/v1/txt2img.",
    ),
  url: z.url({ protocol: /^https?$/ }).describe("The provider's base URL."),
  model: z.string().min(1).optional().describe("The model to ask for (openai)."),
  api_key_env: EnvVarName.optional().describe(
    "The environment variable holding the provider's API key, sent as a bearer.",
  ),
  timeout_s: Seconds.optional().describe("Longest a generation may take; default 120."),
});
