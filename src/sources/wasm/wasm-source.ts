import type {
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  GetPromptRequest,
  GetPromptResult,
  Implementation,
  ListPromptsResult,
  ListResourcesResult,
  ReadResourceRequest,
  ReadResourceResult,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/server";
import { BrokerError } from "../../contract/errors.js";
import { isJsonObject, parseJson } from "../../contract/json-text.js";
import type { Logger } from "../../contract/log.js";
import type { CallContext, Router } from "../../contract/router.js";
import type { WasmSourceConfig } from "./config.js";
import { defaultCacheDir, loadComponent } from "./component-cache.js";
import { ComponentInstance, GuestError, type CallLimits } from "./component-instance.js";
import { raiseWasmMemoryCeiling } from "./memory-ceiling.js";
import { sandboxFor, ungrantedImports, unsuppliedImports } from "./sandbox.js";
import {
  contentFromWit,
  fromF32,
  metaFromWit,
  promptMessageFromWit,
  resourceContentsFromWit,
} from "./wit-content.js";
import {
  capabilitiesFromWit,
  promptFromWit,
  resourceFromWit,
  toolFromWit,
} from "./wit-descriptors.js";

const ROUTER_EXPORT = "wasix:mcp/router@25.3.26";
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MEMORY_MB = 256;
/** MCP's own cap on the values of one completion. */
const MAX_COMPLETION_VALUES = 100;

/**
 * A WebAssembly component that exports `wasix:mcp/router@25.3.26`, served as
 * a source: transpiled once by jco, instantiated in a worker thread with its
 * own sandboxed WASI, and each WIT function mapped to its MCP counterpart.
 */
export class WasmSource implements Router {
  /** One or more instances of the component; a call goes to the least busy. */
  private instances: ComponentInstance[] = [];
  private info: Implementation | undefined;
  private instructionsText: string | undefined;
  private caps: ServerCapabilities = { tools: {} };
  /** Tools whose descriptor cannot be served, by name, with what is wrong. */
  private readonly unusable = new Map<string, string>();
  /** Tools with an output-schema: MCP wants their results as structured content. */
  private readonly structured = new Set<string>();

  constructor(
    readonly name: string,
    private readonly config: WasmSourceConfig,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const maxMemoryMb = this.config.max_memory_mb ?? DEFAULT_MEMORY_MB;
    raiseWasmMemoryCeiling(maxMemoryMb);
    const sandbox = sandboxFor(this.config.permissions);
    if (typeof sandbox === "string") this.fail(sandbox);
    const began = performance.now();
    const component = await loadComponent(
      this.config.component,
      this.config.cache_dir ?? defaultCacheDir(),
    ).catch((err: NodeJS.ErrnoException) =>
      this.fail(
        err.code === "ENOENT"
          ? `component file ${this.config.component} not found`
          : `${this.config.component} is not a WebAssembly component jco can load: ${err.message}`,
      ),
    );
    if (!component.exports.includes(ROUTER_EXPORT))
      this.fail(
        `${this.config.component} does not export ${ROUTER_EXPORT} (it exports: ${component.exports.join(", ") || "nothing"}); build it against the package's wit/`,
      );
    const missing = await unsuppliedImports(component.imports);
    if (missing.length > 0)
      this.fail(
        `${this.config.component} imports ${missing.join(", ")}, which the broker does not supply; only WASI interfaces can be granted`,
      );
    const refused = ungrantedImports(component.imports, sandbox);
    if (refused.length > 0)
      this.log.info(
        { source: this.name, imports: refused },
        "the component imports interfaces its permissions do not grant; such calls will be refused",
      );
    await this.close();
    this.instances = Array.from(
      { length: this.config.instances ?? 1 },
      () =>
        new ComponentInstance({
          source: this.name,
          component,
          sandbox,
          maxMemoryMb,
          log: this.log,
        }),
    );
    try {
      await Promise.all(this.instances.map((instance) => instance.start()));
      const first = this.running();
      const limits = this.limits();
      this.info = {
        name: await first.call("name", [], limits),
        version: `sha256:${component.hash.slice(0, 12)}`,
      };
      this.instructionsText = (await first.call("instructions", [], limits)) || undefined;
      this.caps = capabilitiesFromWit(await first.call("capabilities", [], limits));
      await this.listTools();
    } catch (err) {
      await this.close();
      this.fail((err as Error).message);
    }
    this.log.info(
      {
        source: this.name,
        component: this.info.name,
        transpile_cached: component.cached,
        ms: Math.round(performance.now() - began),
      },
      "source up",
    );
  }

  private fail(problem: string): never {
    throw new BrokerError("unavailable", `source ${this.name}: ${problem}`, { source: this.name });
  }

  replacements(): number {
    return this.instances.reduce((sum, instance) => sum + instance.replacements, 0);
  }

  serverInfo(): Implementation | undefined {
    return this.info;
  }

  instructions(): string | undefined {
    return this.instructionsText;
  }

  capabilities(): ServerCapabilities {
    return this.caps;
  }

  private limits(ctx?: CallContext): CallLimits {
    const timeoutMs = this.config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    if (!ctx) return { timeoutMs };
    return {
      timeoutMs: Math.max(1, Math.min(timeoutMs, ctx.deadline - Date.now())),
      signal: ctx.signal,
    };
  }

  /** The instance with the fewest calls waiting. */
  private running(): ComponentInstance {
    const [first, ...others] = this.instances;
    if (!first)
      throw new BrokerError("unavailable", `source ${this.name} is not started`, {
        source: this.name,
      });
    return others.reduce(
      (idlest, instance) => (instance.pending < idlest.pending ? instance : idlest),
      first,
    );
  }

  /**
   * The component's tools. One the component describes wrongly (a schema that
   * is not JSON, say) is still listed, saying so, with a schema that takes
   * anything: a call to it answers with the problem as a `schema-error`, where
   * leaving it out would only answer "unknown tool".
   */
  async listTools(): Promise<Tool[]> {
    const listed = await this.running().call("listTools", [], this.limits());
    const tools: Tool[] = [];
    this.unusable.clear();
    this.structured.clear();
    for (const mapping of listed.map(toolFromWit)) {
      if ("tool" in mapping) {
        tools.push(mapping.tool);
        if (mapping.tool.outputSchema) this.structured.add(mapping.tool.name);
        continue;
      }
      this.unusable.set(mapping.name, mapping.problem);
      tools.push({
        name: mapping.name,
        description: `Unusable: the component describes this tool wrongly (${mapping.problem}); every call fails.`,
        inputSchema: { type: "object" },
      });
      this.log.warn(
        { source: this.name, tool: mapping.name, problem: mapping.problem },
        "the component describes a tool wrongly; its calls fail",
      );
    }
    return tools;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    const problem = this.unusable.get(name);
    if (problem !== undefined) return toolError("schema-error", `tool ${name}: ${problem}`);
    let result;
    try {
      result = await this.running().call(
        "callTool",
        [name, { json: JSON.stringify(args) }],
        this.limits(ctx),
      );
    } catch (err) {
      // execution-error and schema-error are the tool's to report; the others, the caller's.
      if (
        !(err instanceof GuestError) ||
        err.tag === "invalid-parameters" ||
        err.tag === "not-found"
      )
        throw guestFailure(err, { tool: name });
      return toolError(err.tag, err.val);
    }
    // The WIT call is synchronous: its progress arrives with the result, in order.
    result.progress?.forEach((p, index) => {
      const progress = { progress: p.progress === undefined ? index + 1 : fromF32(p.progress) };
      ctx.progress?.(p.message === undefined ? progress : { ...progress, message: p.message });
    });
    const answer: CallToolResult = { content: result.content.map(contentFromWit) };
    const meta = metaFromWit(result.meta);
    if (meta) answer._meta = meta;
    if (result.isError) answer.isError = true;
    else if (this.structured.has(name)) {
      const structured = structuredContentOf(answer);
      if (!structured)
        return toolError(
          "schema-error",
          `tool ${name} declares an output-schema but returned no JSON object as its first text`,
        );
      answer.structuredContent = structured;
    }
    return answer;
  }

  async listResources(_params: unknown, ctx: CallContext): Promise<ListResourcesResult> {
    const listed = await this.running().call("listResources", [], this.limits(ctx));
    return { resources: listed.map(resourceFromWit) };
  }

  async readResource(
    params: ReadResourceRequest["params"],
    ctx: CallContext,
  ): Promise<ReadResourceResult> {
    try {
      const result = await this.running().call("readResource", [params.uri], this.limits(ctx));
      return { contents: result.contents.map(resourceContentsFromWit) };
    } catch (err) {
      throw guestFailure(err, { uri: params.uri });
    }
  }

  async listPrompts(_params: unknown, ctx: CallContext): Promise<ListPromptsResult> {
    const listed = await this.running().call("listPrompts", [], this.limits(ctx));
    return { prompts: listed.map(promptFromWit) };
  }

  /** The WIT's `get-prompt` takes the name only: the request's arguments cannot reach it. */
  async getPrompt(params: GetPromptRequest["params"], ctx: CallContext): Promise<GetPromptResult> {
    try {
      const result = await this.running().call("getPrompt", [params.name], this.limits(ctx));
      const prompt: GetPromptResult = { messages: result.messages.map(promptMessageFromWit) };
      if (result.description !== undefined) prompt.description = result.description;
      return prompt;
    } catch (err) {
      throw guestFailure(err, { prompt: params.name });
    }
  }

  /**
   * MCP's completion (values for one argument of a prompt or resource
   * template) through the WIT's text completion: the request's params go in
   * as the JSON `input`, and each text block of the answer is one value.
   */
  async complete(params: CompleteRequest["params"], ctx: CallContext): Promise<CompleteResult> {
    let response;
    try {
      response = await this.running().call(
        "complete",
        [{ input: { json: JSON.stringify(params) } }],
        this.limits(ctx),
      );
    } catch (err) {
      throw guestFailure(err, { argument: params.argument.name });
    }
    const texts = response.content.flatMap((c) => (c.tag === "text" ? [c.val.text] : []));
    if (response.isError)
      throw new BrokerError("execution_failed", texts.join("\n") || "the completion failed");
    return {
      completion: {
        values: texts.slice(0, MAX_COMPLETION_VALUES),
        total: texts.length,
        hasMore: texts.length > MAX_COMPLETION_VALUES,
      },
    };
  }

  async close(): Promise<void> {
    const closing = this.instances;
    this.instances = [];
    await Promise.all(closing.map((instance) => instance.close()));
  }
}

/**
 * The WIT result has no structured content: for a tool with an output-schema,
 * its first text block, when that is a JSON object, is it.
 */
function structuredContentOf(result: CallToolResult): Record<string, unknown> | undefined {
  const first = result.content.find((c) => c.type === "text");
  const value = first && parseJson(first.text);
  return isJsonObject(value) ? value : undefined;
}

function toolError(tag: string, message: string): CallToolResult {
  return {
    content: [{ type: "text", text: message }],
    isError: true,
    _meta: { "wasix.mcp/error": tag },
  };
}

/** A guest's error variant as the broker's error; anything else as it is. */
function guestFailure(err: unknown, details: Record<string, unknown>): unknown {
  if (!(err instanceof GuestError)) return err;
  switch (err.tag) {
    case "invalid-parameters":
      return new BrokerError("invalid_params", err.val, details);
    case "not-found":
      return new BrokerError("not_found", err.val, details);
    default:
      return new BrokerError("execution_failed", err.val, { ...details, error: err.tag });
  }
}
