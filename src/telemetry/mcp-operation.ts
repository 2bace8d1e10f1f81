import {
  context,
  createNoopMeter,
  metrics,
  ProxyTracerProvider,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Histogram,
  type MeterProvider,
  type Span,
} from "@opentelemetry/api";
import { BrokerError } from "../contract/errors.js";
import { packageVersion } from "../contract/version.js";
import {
  ERROR_TYPE,
  GEN_AI_OPERATION,
  GEN_AI_PROMPT,
  GEN_AI_TOOL,
  MCP_METHOD,
  MCP_RESOURCE_URI,
  TOOL_CALL_ARGUMENTS,
  TOOL_CALL_RESULT,
  TOOL_ERROR,
} from "./mcp-attributes.js";

const tracer = trace.getTracer("mcp-broker", packageVersion);
const BUCKETS_S = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60];

/**
 * The duration histogram, made from the meter provider in force: unlike
 * tracers, meters taken before an SDK is started stay no-ops for good.
 */
let durations: { provider: MeterProvider; server?: Histogram | undefined } | undefined;
function serverDuration(): Histogram | undefined {
  const provider = metrics.getMeterProvider();
  if (durations?.provider !== provider) {
    const meter = provider.getMeter("mcp-broker", packageVersion);
    durations = {
      provider,
      server:
        meter.constructor === NO_METER
          ? undefined
          : meter.createHistogram("mcp.server.operation.duration", {
              unit: "s",
              description: "How long the broker took to answer an MCP request.",
              advice: { explicitBucketBoundaries: BUCKETS_S },
            }),
    };
  }
  return durations.server;
}

const NO_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
const NO_METER = createNoopMeter().constructor;

/**
 * Whether an SDK takes spans. Without one, an operation skips even the API's
 * no-op spans: they cost several percent of a fast call for nothing.
 */
function tracing(): boolean {
  return (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() !== NO_TRACER_PROVIDER;
}

/** The name of the operation each served span stands for (a context key would copy a Map per call). */
const servedNames = new WeakMap<object, string>();

/** W3C trace context as `_meta` (and HTTP headers) carry it. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** One MCP operation: its method and what it names (a tool, prompt or resource). */
export interface McpOperation {
  readonly method: string;
  /** The tool or prompt name, or the resource URI. */
  readonly target?: string | undefined;
  readonly attributes?: Attributes;
}

/** `{method} {target}` and the attributes the conventions give an operation of this method. */
function describe(op: McpOperation): { name: string; attributes: Attributes } {
  const attributes: Attributes = { [MCP_METHOD]: op.method, ...op.attributes };
  if (op.target !== undefined) {
    if (op.method === "tools/call") {
      attributes[GEN_AI_TOOL] = op.target;
      attributes[GEN_AI_OPERATION] = "execute_tool";
    } else if (op.method === "prompts/get") attributes[GEN_AI_PROMPT] = op.target;
    else if (op.method === "resources/read") attributes[MCP_RESOURCE_URI] = op.target;
  }
  return { name: op.target === undefined ? op.method : `${op.method} ${op.target}`, attributes };
}

/** The parent a request names in `_meta` (traceparent/tracestate), else the active context. */
export function parentOf(carrier: unknown): Context {
  const active = context.active();
  if (typeof carrier !== "object" || carrier === null || !("traceparent" in carrier)) return active;
  return propagation.extract(active, carrier as TraceCarrier);
}

/** What an operation's outcome says about `error.type`: tool_error, a broker kind, or the error's name. */
function errorTypeOf(outcome: { result?: unknown; error?: unknown }): string | undefined {
  if ("error" in outcome) {
    const err = outcome.error;
    if (err instanceof BrokerError) return err.kind;
    // A JSON-RPC error, as the MCP conventions write it: its code.
    const code = (err as { code?: unknown } | undefined)?.code;
    if (typeof code === "number") return String(code);
    return err instanceof Error ? err.name : "error";
  }
  const result = outcome.result;
  if (typeof result === "object" && result !== null && (result as { isError?: unknown }).isError)
    return TOOL_ERROR;
  return undefined;
}

/**
 * The trace context of now, to run later work inside it: a script's calls
 * arrive from its worker thread, outside the request's async context, and
 * belong to the request's trace all the same.
 */
export function keepTraceContext(): <T>(work: () => T) => T {
  const active = context.active();
  return (work) => context.with(active, work);
}

/** Whether spans or the duration metric are taken at all: callers skip building an operation if not. */
export function observing(): boolean {
  return serverDuration() !== undefined || tracing();
}

/**
 * Runs an operation the broker serves inside a SERVER span, child of `parent`
 * (a remote caller's span, from `_meta` or the HTTP `traceparent`), and
 * records `mcp.server.operation.duration`. Inside an operation already served
 * here, the span is INTERNAL (a meta tool's call of a leaf) and the duration
 * is not counted twice; inside the same operation (a flat tool's call passed
 * on to the policy chain) there is no second span, only its attributes.
 * Arguments and results are not recorded here (see `recordContent`). With no
 * OpenTelemetry SDK started, the operation just runs. `run` gets `input`:
 * no closure is made per call, as this runs for every request.
 */
export function servedOperation<A, T>(
  op: McpOperation,
  parent: Context,
  run: (input: A) => Promise<T>,
  input: A,
): Promise<T> {
  const histogram = serverDuration();
  if (histogram === undefined && !tracing()) return run(input);
  const { name, attributes } = describe(op);
  const enclosing = trace.getSpan(parent);
  const nested = enclosing !== undefined && !enclosing.spanContext().isRemote;
  if (nested && servedNames.get(enclosing) === name) {
    // The same operation, one layer in (a flat tool call reaching the policy chain): one span.
    if (enclosing.isRecording()) enclosing.setAttributes(attributes);
    return run(input);
  }
  const span = tracer.startSpan(
    name,
    { kind: nested ? SpanKind.INTERNAL : SpanKind.SERVER, attributes },
    parent,
  );
  servedNames.set(span, name);
  const started = performance.now();
  return measured(
    span,
    nested ? undefined : histogram,
    attributes,
    started,
    context.with(trace.setSpan(parent, span), run, undefined, input),
  );
}

/**
 * Runs a request to a backend inside a CLIENT span, giving `send` the trace
 * context to put in the request's `_meta`, so the backend's spans join the
 * caller's trace. (Its duration is the span's: a second histogram per call
 * would cost more than the conventions' required one.)
 */
export function backendOperation<T>(
  op: McpOperation,
  send: (carrier: TraceCarrier) => Promise<T>,
): Promise<T> {
  if (!tracing()) return send({});
  const { name, attributes } = describe(op);
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
  const spanContext = trace.setSpan(context.active(), span);
  const carrier: TraceCarrier = {};
  propagation.inject(spanContext, carrier);
  const started = performance.now();
  return measured(
    span,
    undefined,
    attributes,
    started,
    context.with(spanContext, send, undefined, carrier),
  );
}

/** Ends `span` with the outcome of `running`, and records its duration in `histogram`. */
async function measured<T>(
  span: Span,
  histogram: Histogram | undefined,
  attributes: Attributes,
  started: number,
  running: Promise<T>,
): Promise<T> {
  try {
    const result = await running;
    finish(span, histogram, attributes, started, errorTypeOf({ result }));
    return result;
  } catch (error) {
    finish(span, histogram, attributes, started, errorTypeOf({ error }));
    throw error;
  }
}

function finish(
  span: Span,
  histogram: Histogram | undefined,
  attributes: Attributes,
  started: number,
  errorType: string | undefined,
): void {
  if (errorType !== undefined) {
    span.setAttribute(ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
  if (histogram === undefined) return;
  const kept = metricAttributes(attributes);
  histogram.record(
    (performance.now() - started) / 1000,
    errorType === undefined ? kept : { ...kept, [ERROR_TYPE]: errorType },
  );
}

/** The metric's attribute sets, one per method and name: made once, not per call. */
const metricSets = new Map<string, Attributes>();
const MAX_METRIC_SETS = 10_000;

/** The low-cardinality attributes a metric keeps: method and tool or prompt name. */
function metricAttributes(attributes: Attributes): Attributes {
  const method = attributes[MCP_METHOD];
  const tool = attributes[GEN_AI_TOOL];
  const prompt = attributes[GEN_AI_PROMPT];
  const key = `${String(method)}\u0000${String(tool ?? "")}\u0000${String(prompt ?? "")}`;
  let kept = metricSets.get(key);
  if (kept === undefined) {
    kept = { [MCP_METHOD]: method };
    if (tool !== undefined) kept[GEN_AI_TOOL] = tool;
    if (prompt !== undefined) kept[GEN_AI_PROMPT] = prompt;
    if (metricSets.size < MAX_METRIC_SETS) metricSets.set(key, kept);
  }
  return kept;
}

/** A step of the policy that did work, as an event on the request's span (if it is recorded). */
export function policyEvent(name: string, attributes: Attributes): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.addEvent(name, attributes);
}

/**
 * Request params with the trace context in their `_meta` (the MCP way to
 * carry `traceparent` and `tracestate`), replacing any the caller sent: the
 * backend's parent is the broker's CLIENT span. Unchanged when there is none.
 */
export function withTraceContext(
  params: Record<string, unknown>,
  carrier: TraceCarrier,
): Record<string, unknown> {
  if (carrier.traceparent === undefined) return params;
  const meta = params._meta;
  return {
    ...params,
    _meta: { ...(typeof meta === "object" && meta !== null ? meta : {}), ...carrier },
  };
}

/** Longest argument or result text put on a span; the rest is cut, saying so. */
const MAX_CONTENT_CHARS = 8192;

/**
 * A request's arguments and result on the active span (GenAI's opt-in
 * `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`), as JSON,
 * cut at 8 KiB. The caller redacts them first.
 */
export function recordContent(args: unknown, result: unknown): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttributes({
    [TOOL_CALL_ARGUMENTS]: clipped(JSON.stringify(args) ?? "null"),
    [TOOL_CALL_RESULT]: clipped(JSON.stringify(result) ?? "null"),
  });
}

function clipped(text: string): string {
  return text.length <= MAX_CONTENT_CHARS
    ? text
    : `${text.slice(0, MAX_CONTENT_CHARS)}… (${text.length} characters)`;
}
