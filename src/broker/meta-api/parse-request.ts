import type { z } from "zod";
import { jsonPath } from "../../config/errors.js";
import { BrokerError } from "../../contract/errors.js";
import { KEY_MEANT } from "../../contract/key-meant.js";

/** Parses a request against its schema, as `invalid_params` naming each field that does not fit. */
export function parseRequest<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body, KEY_MEANT);
  if (result.success) return result.data;
  throw invalidRequest(result.error);
}

/** A request that did not fit its schema, as `invalid_params` naming each field. */
export function invalidRequest(error: z.ZodError): BrokerError {
  const problems = error.issues.map((i) => `${jsonPath(i.path)}: ${i.message}`);
  return new BrokerError("invalid_params", `invalid request: ${problems.join("; ")}`, { problems });
}
