import { defineSourceKind } from "../kind.js";
import { EmcpSourceSchema, type EmcpSourceConfig } from "./config.js";
import { EmcpSource } from "./emcp-source.js";

/** The Evolution CMS content and model tools over the site's database (the eMCP specification). */
export const emcpKind = defineSourceKind<EmcpSourceConfig>({
  backend: "emcp",
  configSchema: EmcpSourceSchema,
  create: (config, { id, log }) => new EmcpSource(id, config, log),
  errorProfile: "emcp",
});
