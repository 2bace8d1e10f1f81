import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { traceContext } from "./index.js";

const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

function app() {
  const hono = new Hono();
  hono.use("*", traceContext());
  hono.get("/", (c) => c.json(trace.getSpanContext(context.active()) ?? null));
  return hono;
}

describe("traceContext", () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(() => {
    propagation.disable();
    context.disable();
  });

  it("makes the caller's traceparent the active context while the request is served", async () => {
    const res = await app().request("/", { headers: { traceparent: TRACEPARENT } });
    expect(await res.json()).toMatchObject({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: 1,
      isRemote: true,
    });
  });

  it("leaves the context alone without a traceparent, and after the request", async () => {
    expect(await (await app().request("/")).json()).toBeNull();
    await app().request("/", { headers: { traceparent: TRACEPARENT } });
    expect(trace.getSpanContext(context.active())).toBeUndefined();
  });
});
