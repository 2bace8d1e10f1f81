/**
 * The requests of the meta tools, one schema each, which every frontend
 * parses with (REST's bodies, MCP's tool arguments, the registry's
 * `tools/search`) and from which MCP's `inputSchema`s are made (tools.ts):
 * the same request is the same answer, whichever way it came.
 */
import { TASK_STATUSES } from "../../tasks/task.js";
import { z } from "zod";
import { isJsonObject } from "../../contract/json-text.js";
import { keyMeant } from "../../contract/key-meant.js";
import { normalizePath } from "../../tree/path.js";

const TreePath = z
  .string({ error: 'expected a string: a path such as "/" or "/repo/read"' })
  .refine((p) => normalizePath(p) !== null, {
    error: (issue) => `must be an absolute path such as ${rootedExample(issue.input)}`,
  })
  .describe('A path in the tool tree, such as "/repo/get_file".');

/** The path a relative one likely stands for ("repo/read" → "/repo/read"), or a plain example. */
function rootedExample(path: unknown): string {
  const rooted = typeof path === "string" ? normalizePath(`/${path}`) : null;
  return rooted === null || rooted === "/" ? '"/" or "/repo/read"' : JSON.stringify(rooted);
}

/** Children one `meta_tree` answer lists at most: a model reads them all. */
export const TREE_PAGE = 100;

export const TreeRequest = z.strictObject({
  path: TreePath.default("/").describe("The node whose children to list."),
  // Past a node's children the answer is empty; the bound keeps the schema short.
  offset: z
    .int({ error: "expected a whole number, 0 or more" })
    .min(0, "must be 0 or more")
    .max(1_000_000, "must be at most 1000000")
    .optional()
    .describe("From next_offset."),
});

export const DescribeRequest = z.strictObject({
  path: TreePath,
  format: z
    .enum(["json", "typescript"], { error: 'expected "json" or "typescript"' })
    .default("json")
    .describe("typescript: declare the tools under path, for meta_run."),
});

export const CallRequest = z.strictObject(
  {
    path: TreePath,
    args: z
      .record(z.string(), z.unknown(), {
        error: (issue) =>
          typeof issue.input === "string"
            ? "expected an object of named arguments, not a string: send the object itself, without quotes around it"
            : "expected an object of named arguments",
      })
      .default({})
      .describe("Arguments of the tool, as its args_schema says."),
  },
  { error: argumentsBeside },
);

const CALL_KEYS = ["path", "args"];

/**
 * A call whose tool arguments were written beside `path` instead of inside
 * `args` (a model's common slip) is told where they go, with its own keys;
 * every other issue keeps the words of the parse.
 */
function argumentsBeside(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== "unrecognized_keys" || !isJsonObject(issue.input)) return undefined;
  const input = issue.input;
  // "arg" for "args" is a typo, named as such by the parse's own words.
  if (Object.hasOwn(input, "args") || issue.keys.some((k) => keyMeant(k, CALL_KEYS, input)))
    return undefined;
  const keys = issue.keys.map((key) => JSON.stringify(key));
  const path = typeof input.path === "string" ? JSON.stringify(input.path) : "…";
  const shown = keys.slice(0, 8).map((k) => `${k}: …`);
  const example = `{"path": ${path}, "args": {${[...shown, ...(keys.length > 8 ? ["…"] : [])].join(", ")}}}`;
  return `Unrecognized key${keys.length === 1 ? "" : "s"}: ${keys.join(", ")}: a tool's arguments go inside "args", as ${example}`;
}

/** The longest query searched as it is: a request for a tool is a sentence, not a document. */
export const MAX_QUERY_CHARS = 1000;
/** The longest request taken: longer than MAX_QUERY_CHARS is searched on its salient part. */
export const MAX_QUERY_INPUT_CHARS = 100_000;

export const SearchRequest = z
  .strictObject({
    query: z
      .string({ error: 'expected a string saying what the tool should do, such as "read a file"' })
      .trim()
      .min(1, 'is empty; say what the tool should do, such as "read a file"')
      .max(
        MAX_QUERY_INPUT_CHARS,
        `is longer than ${MAX_QUERY_INPUT_CHARS} characters; say in a sentence what the tool should do`,
      )
      .describe('What the tool should do, such as "read a file".'),
    limit: z
      .int({ error: "expected a whole number from 1 to 50" })
      .min(1, "must be from 1 to 50")
      .max(50, "must be from 1 to 50")
      .default(10)
      .describe("Results at most."),
    path: TreePath.default("/").describe("Search only under this node."),
    include_schema: z.boolean().default(false).describe("Add each tool's args_schema."),
  })
  .transform(({ include_schema, ...rest }) => ({ ...rest, includeSchema: include_schema }));

/** The longest script taken: a script is a few calls and a filter, not a program. */
export const MAX_CODE_CHARS = 20_000;

/** The longest a script may run, waiting for its calls included. */
export const MAX_RUN_TIMEOUT_S = 300;

export const RunRequest = z.strictObject({
  code: z
    .string({
      error: 'expected a string of JavaScript, such as "return await tools.demo.add({a: 1, b: 2})"',
    })
    .min(1, "is empty; write the body of an async function that returns what you need")
    .max(
      MAX_CODE_CHARS,
      `is longer than ${MAX_CODE_CHARS} characters; a script calls tools and filters, keep it short`,
    )
    .describe("JavaScript: the body of an async function; `return` what you need."),
  timeout_s: z
    .number({ error: `expected seconds, from 1 to ${MAX_RUN_TIMEOUT_S}` })
    .min(1, `must be from 1 to ${MAX_RUN_TIMEOUT_S}`)
    .max(MAX_RUN_TIMEOUT_S, `must be from 1 to ${MAX_RUN_TIMEOUT_S}`)
    .optional()
    .describe("Seconds it may run, calls included; default 30."),
  report_calls: z.boolean().optional().describe("Add call_log, each call's outcome and time."),
});

/** `GET /tasks`'s query: one status, or every task the caller may see. */
export const TaskListQuery = z.strictObject({
  status: z.enum(TASK_STATUSES).optional(),
});

/** The body of `POST /tasks/<id>/approve` and `/deny`: why, optionally. */
export const DecisionRequest = z.strictObject({
  reason: z.string().max(1000).optional().describe("Why, kept with the task and audited."),
});
