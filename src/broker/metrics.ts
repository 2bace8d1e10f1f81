import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { SourceStatus } from "../contract/router.js";

/**
 * The broker's Prometheus metrics, in a registry of its own (several brokers
 * in one process, as in tests, do not mix): calls and their outcomes, call
 * latency, and each source's state.
 */
export class BrokerMetrics {
  readonly registry = new Registry();
  private readonly calls = new Counter({
    name: "mcp_broker_calls_total",
    help: "Tool calls by source and outcome (ok, tool_error, or an error kind).",
    labelNames: ["source", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: "mcp_broker_call_duration_seconds",
    help: "Tool call latency through the broker, by source.",
    labelNames: ["source"] as const,
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });

  constructor(sources: () => Record<string, SourceStatus>) {
    new Gauge({
      name: "mcp_broker_source_up",
      help: "1 when the source is up, 0 while it is down or restarting.",
      labelNames: ["source"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [source, status] of Object.entries(sources()))
          this.set({ source }, status.up ? 1 : 0);
      },
    });
    new Gauge({
      name: "mcp_broker_source_restarts",
      help: "How many times the source was restarted.",
      labelNames: ["source"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [source, status] of Object.entries(sources()))
          this.set({ source }, status.restarts);
      },
    });
  }

  observeCall(source: string, outcome: string, seconds: number): void {
    this.calls.inc({ source, outcome });
    this.latency.observe({ source }, seconds);
  }
}
