/**
 * The MCP Registry's shapes (`/v0.1/servers`, `server.json`), as far as the
 * broker reads them: loose objects, so that a field a newer registry adds
 * is no error, and exact where the broker acts on a value.
 */
import { z } from "zod";

const Input = z.looseObject({
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  value: z.string().optional(),
  default: z.string().optional(),
  choices: z.array(z.string()).optional(),
});

const WithVariables = Input.extend({ variables: z.record(z.string(), Input).optional() });

export const Argument = WithVariables.extend({
  type: z.enum(["positional", "named"]),
  name: z.string().optional(),
  valueHint: z.string().optional(),
  isRepeated: z.boolean().optional(),
});

export const KeyValueInput = WithVariables.extend({ name: z.string().min(1) });

const Transport = z.looseObject({
  type: z.string(),
  url: z.string().optional(),
  headers: z.array(KeyValueInput).optional(),
  variables: z.record(z.string(), Input).optional(),
});

export const Package = z.looseObject({
  registryType: z.string(),
  registryBaseUrl: z.string().optional(),
  identifier: z.string().min(1),
  version: z.string().optional(),
  fileSha256: z.string().optional(),
  runtimeHint: z.string().optional(),
  transport: Transport,
  runtimeArguments: z.array(Argument).optional(),
  packageArguments: z.array(Argument).optional(),
  environmentVariables: z.array(KeyValueInput).optional(),
});

export const ServerDetail = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  title: z.string().optional(),
  version: z.string().optional(),
  packages: z.array(Package).optional(),
  remotes: z.array(Transport).optional(),
});

export const ServerResponse = z.looseObject({
  server: ServerDetail,
  _meta: z.record(z.string(), z.unknown()).optional(),
});

export const ServerList = z.looseObject({
  servers: z.array(ServerResponse),
  metadata: z
    .looseObject({ nextCursor: z.string().optional(), count: z.number().optional() })
    .optional(),
});

export type ServerDetail = z.infer<typeof ServerDetail>;
export type InputWithVariables = z.infer<typeof WithVariables>;
export type Package = z.infer<typeof Package>;
export type Argument = z.infer<typeof Argument>;
export type KeyValueInput = z.infer<typeof KeyValueInput>;
export type ServerResponse = z.infer<typeof ServerResponse>;
