/** The `source` fields of a REST API described by an OpenAPI document. */
import { z } from "zod";
import { ConfigPath } from "../../config/config-folder.js";
import { mountFields } from "../../config/schema.js";

const HttpUrl = z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" });

const ApiAuthSchema = z.union([
  z.strictObject({
    api_key: z.strictObject({
      in: z.enum(["header", "query", "cookie"]),
      name: z.string().min(1),
      value: z
        .string()
        .min(1)
        .describe('Write it as "${ENV_NAME}": the config then holds no secret.'),
    }),
  }),
  z.strictObject({
    bearer: z.string().min(1).describe('The token; write it as "${ENV_NAME}".'),
  }),
  z.strictObject({
    basic: z.strictObject({ username: z.string(), password: z.string() }),
  }),
  z.strictObject({
    client_credentials: z.strictObject({
      token_url: HttpUrl.optional().describe(
        "Where tokens are got; default the document's OAuth 2 client credentials flow's tokenUrl.",
      ),
      client_id: z.string().min(1),
      client_secret: z.string().min(1).describe('Write it as "${ENV_NAME}".'),
      scope: z.string().min(1).optional().describe("The scopes to ask for, space-separated."),
    }),
  }),
]);

export const OpenApiSourceSchema = z.strictObject({
  backend: z.literal("openapi"),
  spec: z
    .union([HttpUrl, ConfigPath])
    .describe(
      "The OpenAPI document (3.0, 3.1, or Swagger 2.0), JSON or YAML: a file (relative to the config's folder) or an http(s) URL.",
    ),
  base_url: HttpUrl.optional().describe(
    "Where the API is; default the document's first server (relative to the document's URL).",
  ),
  auth: ApiAuthSchema.optional().describe(
    "How the broker authenticates to the API (never the caller's token): an API key in a header, query or cookie, a bearer token, basic, or an OAuth client credentials grant.",
  ),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe("Sent with every request; ${ENV} works here too."),
  operations: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'Globs over operationId or "METHOD /path" (such as "GET /pets/*"); "!pattern" leaves out. Default: every operation.',
    ),
  allowed_hosts: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "Hosts the requests may reach besides base_url's (a redirect elsewhere is refused): names, globs, addresses, CIDR networks.",
    ),
  max_response_bytes: z
    .int()
    .positive()
    .max(256 * 1024 * 1024)
    .optional()
    .describe("The most of an answer read; default 8388608 (8 MiB)."),
  ...mountFields,
});

export type OpenApiSourceConfig = z.infer<typeof OpenApiSourceSchema>;
export type ApiAuth = z.infer<typeof ApiAuthSchema>;
