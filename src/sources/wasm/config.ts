/** The `source` fields of a WebAssembly component. */
import { z } from "zod";
import { mountFields } from "../../config/schema.js";
import { ENV_NAME } from "../../config/env-name.js";
import { ConfigPath } from "../../config/config-folder.js";

export const WasmSourceSchema = z.strictObject({
  backend: z.literal("wasm"),
  component: ConfigPath.describe(
    "Path to a .wasm component that exports wasix:mcp/router@25.3.26.",
  ),
  permissions: z
    .strictObject({
      dirs: z
        .record(z.string(), ConfigPath)
        .superRefine((dirs, ctx) => {
          for (const guest of Object.keys(dirs))
            if (!guest.startsWith("/"))
              ctx.addIssue({
                code: "custom",
                path: [guest],
                message: `guest path "${guest}" is not absolute; write it as "/${guest}"`,
              });
        })
        .optional()
        .describe('Guest path → host folder, such as {"/data": "./data"}; none by default.'),
      env: z.array(ENV_NAME).optional().describe("Variables the component sees; none by default."),
      network: z.boolean().optional().describe("true: outgoing sockets and HTTP; default false."),
    })
    .optional()
    .describe("What the component may reach; by default nothing on the host."),
  timeout_ms: z
    .int()
    .positive()
    .optional()
    .describe("Longest a call may run in the component before it is stopped; default 10000."),
  max_memory_mb: z
    .int()
    .min(16)
    .max(4096)
    .optional()
    .describe("Memory of one instance, WebAssembly and JavaScript heap each; default 256."),
  cache_dir: ConfigPath.optional().describe(
    "Where transpiled components are kept; default ~/.cache/mcp-broker/wasm.",
  ),
  instances: z
    .int()
    .min(1)
    .max(64)
    .optional()
    .describe("Instances serving calls in parallel, each with its own state; default 1."),
  ...mountFields,
});

export type WasmSourceConfig = z.infer<typeof WasmSourceSchema>;
