import { z } from "zod";
import { BrokerError } from "../../contract/errors.js";
import { jsonPath } from "../../config/errors.js";
import { normalizePath } from "../../tree/path.js";

const TreePath = z
  .string()
  .refine((p) => normalizePath(p) !== null, 'must be an absolute path such as "/" or "/repo/read"');

export const PathRequest = z.strictObject({ path: TreePath.default("/") });
export const CallRequest = z.strictObject({
  path: TreePath,
  args: z
    .record(z.string(), z.unknown(), { error: "expected an object of named arguments" })
    .default({}),
});

/** Parses a request body against one of the schemas above, as `invalid_params` naming the field. */
export function parseRequest<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw invalidRequest(result.error);
}

/** A request that did not fit its schema, as `invalid_params` naming each field. */
export function invalidRequest(error: z.ZodError): BrokerError {
  const problems = error.issues.map((i) => `${jsonPath(i.path)}: ${i.message}`);
  return new BrokerError("invalid_params", `invalid request: ${problems.join("; ")}`, { problems });
}
