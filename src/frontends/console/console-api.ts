import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { allows, reaches } from "../../auth/scopes.js";
import type { Credentials } from "../../auth/credentials.js";
import type { Broker } from "../../broker/broker.js";
import type { AuthEnv } from "../http/token-auth/index.js";
import { needsAdmin } from "../../auth/needs-admin.js";
import { TrafficWindow } from "./traffic-window.js";

/** The pseudo-path an `admin` scope must match to see the live traffic (it shows tokens). */
const TRAFFIC_PATH = "/console";
/** Audit events a slow reader may have unsent before the stream drops the rest. */
const MAX_PENDING = 500;
const KEEPALIVE_MS = 15_000;

/**
 * What the console reads besides the REST meta API and `/healthz`:
 *
 * - `GET /console/api/me`: who the token is, whether auth is on, and what
 *   it may see of the console;
 * - `GET /console/api/traffic` (admin): tool calls per second and p50/p99
 *   latency per source over the last five minutes, and the open sessions;
 * - `GET /console/api/audit` (admin): every audit record as it is written,
 *   as Server-Sent Events (`event: audit`).
 */
export function consoleApi(
  broker: Broker,
  credentials: () => Credentials,
): { app: Hono<AuthEnv>; close(): void } {
  const traffic = new TrafficWindow();
  /** Ends each open audit stream: a server closing waits for its open responses. */
  const streams = new Set<() => void>();
  broker.onAudit((record, source) => {
    if (record.method === "tools/call")
      traffic.add(source, record.duration_ms, record.outcome === "ok");
  });
  const app = new Hono<AuthEnv>();
  app.get("/console/api/me", (c) => {
    const principal = c.get("principal");
    return c.json({
      token: principal.id,
      auth: credentials().required,
      can: {
        health_details: allows(principal, "admin", "/healthz"),
        traffic: allows(principal, "admin", TRAFFIC_PATH),
        run: allows(principal, "run", "/"),
        // An admin of any path sees the tool definitions under it that wait for approval.
        pins: reaches(principal, "admin", "/"),
      },
    });
  });
  app.get("/console/api/traffic", (c) => {
    needsAdmin(c.get("principal"), TRAFFIC_PATH, "the live traffic");
    const stepS = 5;
    return c.json({
      step_s: stepS,
      sources: traffic.series(stepS),
      sessions: broker.metrics.openSessions(),
    });
  });
  app.get("/console/api/audit", (c) => {
    needsAdmin(c.get("principal"), TRAFFIC_PATH, "the live traffic");
    return streamSSE(c, async (stream) => {
      let pending = 0;
      let dropped = 0;
      const send = (event: string, data: unknown) => {
        pending++;
        stream
          .writeSSE({ event, data: JSON.stringify(data) })
          .catch(() => undefined)
          .finally(() => pending--);
      };
      const stop = broker.onAudit((record, source) => {
        if (pending >= MAX_PENDING) return void dropped++;
        if (dropped > 0) {
          send("dropped", { count: dropped });
          dropped = 0;
        }
        send("audit", { ...record, source });
      });
      const keepalive = setInterval(() => send("ping", {}), KEEPALIVE_MS);
      let end = () => {};
      await new Promise<void>((resolve) => {
        end = resolve;
        streams.add(end);
        stream.onAbort(end);
      });
      streams.delete(end);
      stop();
      clearInterval(keepalive);
    });
  });
  return {
    app,
    close() {
      for (const end of streams) end();
      streams.clear();
    },
  };
}
