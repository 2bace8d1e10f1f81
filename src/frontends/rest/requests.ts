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

/** The longest query taken: a request for a tool is a sentence, not a document. */
export const MAX_QUERY_CHARS = 1000;

export const SearchRequest = z
  .strictObject({
    query: z
      .string({ error: 'expected a string saying what the tool should do, such as "read a file"' })
      .trim()
      .min(1, 'is empty; say what the tool should do, such as "read a file"')
      .max(
        MAX_QUERY_CHARS,
        `is longer than ${MAX_QUERY_CHARS} characters; say in a sentence what the tool should do`,
      ),
    limit: z
      .int({ error: "expected a whole number from 1 to 50" })
      .min(1, "must be from 1 to 50")
      .max(50, "must be from 1 to 50")
      .default(10),
    path: TreePath.default("/"),
    include_schema: z.boolean().default(false),
  })
  .transform(({ include_schema, ...rest }) => ({ ...rest, includeSchema: include_schema }));

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
