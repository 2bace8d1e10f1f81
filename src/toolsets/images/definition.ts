import { builtinDefinition } from "../builtin-toolset.js";

/** The image generator of the tool registry protocol's predefined tool contracts, as written there. */
export const IMAGE_GENERATOR = builtinDefinition({
  name: "image_generator",
  description: "AI-powered image generation",
  category: "AI_GENERATION",
  functions: [
    {
      name: "generate_image",
      description:
        "Generate image from text description, through the configured provider (an OpenAI-compatible images API or AUTOMATIC1111).",
      parameters: {
        type: "object",
        properties: {
          prompt: { type: "string" },
          style: {
            type: "string",
            enum: ["realistic", "artistic", "cartoon", "abstract"],
            default: "realistic",
          },
          size: {
            type: "string",
            enum: ["256x256", "512x512", "1024x1024"],
            default: "512x512",
          },
        },
        required: ["prompt"],
      },
    },
  ],
});
