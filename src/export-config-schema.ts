/** Writes `config.schema.json` at the package root, for editors to complete configs. */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ConfigSchema } from "./sources/kinds.js";

export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ConfigSchema, { io: "input", unrepresentable: "any" }),
    title: "mcp-broker config",
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = fileURLToPath(new URL("../config.schema.json", import.meta.url));
  writeFileSync(target, JSON.stringify(configJsonSchema(), null, 2) + "\n");
  console.log(`wrote ${target}`);
}
