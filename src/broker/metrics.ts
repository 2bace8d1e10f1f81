import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { SourceState, SourceStatus } from "../contract/router.js";
import type { ToolHealth } from "../registry/service-runtime.js";
import { TOOL_STATUSES } from "../registry/tool-definition.js";

const STATES: readonly SourceState[] = ["starting", "up", "restarting", "failed"];
const BREAKER_STATES = ["closed", "open", "half_open"] as const;

/**
 * The broker's Prometheus metrics, in a registry of its own (several brokers
 * in one process, as in tests, do not mix): requests and their outcomes,
 * tool call latency, each source's state, each registered tool's status and
 * breaker, refused tokens and open sessions; and prom-client's standard
 * process and Node.js metrics (resident memory, heap, event-loop lag, GC),
 * which operators' dashboards and alerts expect by their usual names.
 */
export class BrokerMetrics {
  readonly registry = new Registry();
  private readonly calls = new Counter({
    name: "mcp_broker_calls_total",
    help: "Tool calls by source and outcome (ok, tool_error, or an error kind).",
    labelNames: ["source", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly requests = new Counter({
    name: "mcp_broker_requests_total",
    help: "Requests of every kind (tools/call, resources/read, prompts/get…) by source, method and outcome.",
    labelNames: ["source", "method", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: "mcp_broker_call_duration_seconds",
    help: "Tool call latency through the broker, by source.",
    labelNames: ["source"] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });
  private readonly refusedTokens = new Counter({
    name: "mcp_broker_auth_refused_total",
    help: "Requests refused for their credentials, by reason (missing, malformed, invalid).",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  private readonly sessionCounts = new Map<string, () => number>();

  constructor(
    sources: () => Record<string, SourceStatus>,
    registry: () => Record<string, ToolHealth>,
  ) {
    collectDefaultMetrics({ register: this.registry });
    const perSource = (
      name: string,
      help: string,
      value: (status: SourceStatus) => number,
    ): void => {
      new Gauge({
        name,
        help,
        labelNames: ["source"] as const,
        registers: [this.registry],
        collect() {
          this.reset();
          for (const [source, status] of Object.entries(sources()))
            this.set({ source }, value(status));
        },
      });
    };
    perSource("mcp_broker_source_up", "1 when the source is up, 0 otherwise.", (s) =>
      s.up ? 1 : 0,
    );
    perSource(
      "mcp_broker_source_restarts",
      "How many times the source was restarted (or replaced a part of itself).",
      (s) => s.restarts,
    );
    perSource(
      "mcp_broker_source_attempts",
      "Failed attempts to start the source since it was last up.",
      (s) => s.attempts,
    );
    // A gauge per thing (source, tool) and per possible value, 1 for the value it has.
    const oneHot = <T>(
      name: string,
      help: string,
      [thing, label]: [string, string],
      values: readonly string[],
      current: () => [string, T][],
      valueOf: (item: T) => string,
    ): void => {
      new Gauge({
        name,
        help,
        labelNames: [thing, label],
        registers: [this.registry],
        collect() {
          this.reset();
          for (const [key, item] of current())
            for (const value of values)
              this.set({ [thing]: key, [label]: value }, valueOf(item) === value ? 1 : 0);
        },
      });
    };
    oneHot(
      "mcp_broker_source_state",
      "1 for the state the source is in (starting, up, restarting, failed), 0 for the others.",
      ["source", "state"],
      STATES,
      () => Object.entries(sources()),
      (status) => status.state,
    );
    oneHot(
      "mcp_broker_registry_tool_status",
      "1 for the status a registered tool has here (AVAILABLE, UNAVAILABLE, MAINTENANCE), 0 for the others.",
      ["tool", "status"],
      TOOL_STATUSES,
      () => Object.entries(registry()),
      (health) => health.status,
    );
    oneHot(
      "mcp_broker_registry_breaker_state",
      "1 for the state of a registered tool's circuit breaker here (closed, open, half_open), 0 for the others.",
      ["tool", "state"],
      BREAKER_STATES,
      () => Object.entries(registry()),
      (health) => health.breaker,
    );
    const sessions = this.sessionCounts;
    new Gauge({
      name: "mcp_broker_sessions_open",
      help: "Open MCP sessions, by endpoint kind.",
      labelNames: ["endpoint"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [endpoint, count] of sessions) this.set({ endpoint }, count());
      },
    });
  }

  observeRequest(source: string, method: string, outcome: string, seconds: number): void {
    this.requests.inc({ source, method, outcome });
    if (method !== "tools/call") return;
    this.calls.inc({ source, outcome });
    this.latency.observe({ source }, seconds);
  }

  tokenRefused(reason: "missing" | "malformed" | "invalid"): void {
    this.refusedTokens.inc({ reason });
  }

  /** Reports the open sessions of an endpoint kind (`http`, `stdio`) whenever metrics are read. */
  countSessions(endpoint: string, count: () => number): void {
    this.sessionCounts.set(endpoint, count);
  }

  /** The open sessions now, by endpoint kind. */
  openSessions(): Record<string, number> {
    return Object.fromEntries(
      [...this.sessionCounts].map(([endpoint, count]) => [endpoint, count()]),
    );
  }
}
