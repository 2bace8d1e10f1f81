import { defineSourceKind } from "../kind.js";
import { OpenApiSourceSchema, type OpenApiSourceConfig } from "./config.js";
import { OpenApiSource } from "./openapi-source.js";

/** A REST API from its OpenAPI document: one tool per operation. */
export const openApiKind = defineSourceKind<OpenApiSourceConfig>({
  backend: "openapi",
  configSchema: OpenApiSourceSchema,
  create: (config, { id, log }) => new OpenApiSource(id, config, log),
});
