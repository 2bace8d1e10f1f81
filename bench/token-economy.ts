/**
 * What a model reads to get multi-step work done, three ways, counted with
 * the o200k_base tokenizer: every tool's definition at every turn and every
 * result read (flat tools); the five meta tools, a search and a description
 * per tool it needs, then each call (meta tools); the TypeScript
 * declarations of the tools it needs and one `meta_run` script whose result
 * alone comes back (code mode). Each task is run for real against the demo
 * fleet (examples/demo.json), and again with 600 more tools mounted beside it
 * (the public tool-retrieval set's fleet, where MCP_BROKER_TOOL_SEARCH_SET
 * names its folder: see public-set.ts; its APIs answered by a stand-in), so
 * what flat tools cost grows as fleets do.
 *
 * Tokens are the sum over the model's turns of what it reads (the
 * definitions, the request and the conversation so far) and writes (its
 * calls, then the answer): the cost of the whole exchange. Round trips are
 * the tool calls it makes.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connectHttp } from "../test/helpers/mcp-client.js";
import { machineLine } from "./machine.js";
import { demoConfig } from "./demo-config.js";
import { broker, stopChildren } from "./processes.js";
import { TASKS, type Task } from "./token-tasks.js";
import { PUBLIC_SET_VARIABLE } from "./tool-search/public-set.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const FLEET = join(process.env[PUBLIC_SET_VARIABLE] ?? "", "fleet.json");
const SYSTEM = "You are an assistant with tools. Use them to answer the user's request.";

const tokens = (text: string) => encode(text).length;
const json = (value: unknown) => JSON.stringify(value);

interface Step {
  readonly call: string;
  readonly result: string;
}

/** The tokens of an exchange: each turn reads the definitions and all before it, and writes a call. */
function exchange(definitions: string, request: string, steps: readonly Step[], answer: string) {
  let context = tokens(SYSTEM) + tokens(definitions) + tokens(request);
  let total = 0;
  for (const step of steps) {
    const call = tokens(step.call);
    total += context + call;
    context += call + tokens(step.result);
  }
  total += context + tokens(answer);
  return { tokens: total, roundTrips: steps.length };
}

/** What a tool result puts before a model: its text blocks, else the blocks as JSON. */
function resultText(result: { content?: unknown }): string {
  const blocks = (result.content ?? []) as { type: string; text?: string }[];
  return blocks.every((b) => b.type === "text")
    ? blocks.map((b) => b.text ?? "").join("\n")
    : json(blocks);
}

async function measureFleet(name: string, config: unknown) {
  const { port } = await broker(config);
  const client: Client = await connectHttp(`http://127.0.0.1:${port}`);
  const listed = (await client.listTools()).tools;
  const meta = listed.filter((t) => t.name.startsWith("meta_"));
  const flat = listed.filter((t) => !t.name.startsWith("meta_"));
  const flatByPath = new Map<string, string>();
  for (const tool of flat) flatByPath.set(`/${tool.name.replaceAll("__", "/")}`, tool.name);

  const call = async (tool: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name: tool, arguments: args })) as {
      content?: unknown;
      structuredContent?: unknown;
    };
    return { text: resultText(result), result };
  };
  const rows = [];
  for (const task of TASKS) rows.push(await measureTask(task, call, json(flat), json(meta)));
  await client.close();
  return { name, flatTools: flat.length, flatDefinitionTokens: tokens(json(flat)), rows };
}

async function measureTask(
  task: Task,
  call: (
    tool: string,
    args: Record<string, unknown>,
  ) => Promise<{ text: string; result: { structuredContent?: unknown } }>,
  flatDefinitions: string,
  metaDefinitions: string,
) {
  // The calls a model makes one by one, decided on what each answered.
  const steps: { path: string; args: Record<string, unknown>; text: string }[] = [];
  const answer = await task.steps(async (path, args) => {
    const { text, result } = await call("meta_call", { path, args });
    steps.push({ path, args, text });
    // As a script gets it: the structured content, else (these tools render text) the text.
    return (result.structuredContent ?? text) as never;
  });
  const flatSteps = steps.map((s) => ({
    call: json({ name: s.path.slice(1).replaceAll("/", "__"), arguments: s.args }),
    result: s.text,
  }));
  const flat = exchange(flatDefinitions, task.request, flatSteps, json(answer));

  const metaSteps: Step[] = [];
  for (const query of task.searches) {
    const args = { query, limit: 5 };
    metaSteps.push({
      call: json({ name: "meta_search", arguments: args }),
      result: (await call("meta_search", args)).text,
    });
  }
  for (const path of new Set(steps.map((s) => s.path))) {
    metaSteps.push({
      call: json({ name: "meta_desc", arguments: { path } }),
      result: (await call("meta_desc", { path })).text,
    });
  }
  for (const s of steps) {
    metaSteps.push({
      call: json({ name: "meta_call", arguments: { path: s.path, args: s.args } }),
      result: s.text,
    });
  }
  const metaTools = exchange(metaDefinitions, task.request, metaSteps, json(answer));

  const codeSteps: Step[] = [];
  // Declared tool by tool, as the meta tools' model describes them: what the script calls.
  for (const path of new Set(steps.map((s) => s.path))) {
    const args = { path, format: "typescript" };
    codeSteps.push({
      call: json({ name: "meta_desc", arguments: args }),
      result: (await call("meta_desc", args)).text,
    });
  }
  const ran = await call("meta_run", { code: task.script });
  codeSteps.push({
    call: json({ name: "meta_run", arguments: { code: task.script } }),
    result: ran.text,
  });
  const code = exchange(metaDefinitions, task.request, codeSteps, json(answer));
  const scriptAnswer = (JSON.parse(ran.text) as { result?: unknown }).result;
  return { task: task.name, flat, metaTools, code, same: json(scriptAnswer) === json(answer) };
}

const demo = { ...(await demoConfig()), expose: "both" };
const fleets = [await measureFleet("demo fleet", demo)];
if (process.env[PUBLIC_SET_VARIABLE] && existsSync(FLEET)) {
  fleets.push(
    await measureFleet("demo fleet + 600 public tools", {
      ...demo,
      tree: [
        ...[demo.tree].flat(),
        {
          path: "/fleet",
          summary: "Public APIs (definitions only: a stand-in answers)",
          source: {
            backend: "stdio",
            command: [process.execPath, "--import", "tsx", "bench/fleet-server.ts", FLEET, "600"],
            // Its paths (and tsx's) are the repository's; the config is written elsewhere.
            cwd: root,
          },
        },
      ],
    }),
  );
} else {
  console.log(`(no fleet.json where ${PUBLIC_SET_VARIABLE} says: the large fleet is left out)`);
}

console.log(machineLine());
for (const fleet of fleets) {
  console.log("");
  console.log(
    `### ${fleet.name}: ${fleet.flatTools} flat tools, their definitions ${fleet.flatDefinitionTokens} tokens`,
  );
  console.log("");
  console.log(
    "| task | flat tokens | meta tokens | code tokens | code/flat | code/meta | round trips flat/meta/code | same answer |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |");
  const sum = { flat: 0, meta: 0, code: 0 };
  for (const r of fleet.rows) {
    sum.flat += r.flat.tokens;
    sum.meta += r.metaTools.tokens;
    sum.code += r.code.tokens;
    console.log(
      `| ${r.task} | ${r.flat.tokens} | ${r.metaTools.tokens} | ${r.code.tokens} | ${(r.code.tokens / r.flat.tokens).toFixed(2)} | ${(r.code.tokens / r.metaTools.tokens).toFixed(2)} | ${r.flat.roundTrips}/${r.metaTools.roundTrips}/${r.code.roundTrips} | ${r.same ? "yes" : "NO"} |`,
    );
  }
  console.log(
    `| **all** | ${sum.flat} | ${sum.meta} | ${sum.code} | ${(sum.code / sum.flat).toFixed(2)} | ${(sum.code / sum.meta).toFixed(2)} | | |`,
  );
}
stopChildren();
