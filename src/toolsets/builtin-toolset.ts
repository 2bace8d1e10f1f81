import type { z } from "zod";
import { ToolDefinitionSchema, type ServiceDefinition } from "../registry/tool-definition.js";
import type { InProcessService } from "../registry/tool-service.js";

/**
 * A toolset built into the broker (the tool registry protocol's predefined tools): the tool it
 * is, in the registry's terms, and the service that answers it in process.
 * The registry serves it like a registered service (breaker, health, `/rpc`);
 * the `builtin` source kind mounts it in the tree. Arguments reach `call`
 * already validated against the function's `parameters`.
 */
export type BuiltinToolset = InProcessService;

const BuiltinDefinitionSchema = ToolDefinitionSchema.omit({
  endpoint: true,
  health_check_url: true,
});

/** A predefined tool's contract, checked and completed with the registry's defaults. */
export function builtinDefinition(
  contract: z.input<typeof BuiltinDefinitionSchema>,
): ServiceDefinition {
  return BuiltinDefinitionSchema.parse(contract);
}
