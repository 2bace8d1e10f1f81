import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { asBrokerError, HTTP_STATUS } from "../../../contract/errors.js";
import { bodyLimit } from "./index.js";

function app(maxBytes: number) {
  const hono = new Hono();
  hono.onError((err, c) => {
    const e = asBrokerError(err);
    return c.json({ error: e.toJSON() }, HTTP_STATUS[e.kind]);
  });
  hono.use("*", bodyLimit(maxBytes));
  hono.post("/", async (c) => c.text(String((await c.req.text()).length)));
  return hono;
}

/** A body without a declared length: sent chunked, counted as it streams. */
function chunked(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of text.match(/.{1,4}/gs) ?? []) controller.enqueue(Buffer.from(part));
      controller.close();
    },
  });
}

describe("bodyLimit", () => {
  it("passes a body up to the limit, declared or chunked", async () => {
    const hono = app(10);
    const declared = await hono.request("/", { method: "POST", body: "0123456789" });
    expect([declared.status, await declared.text()]).toEqual([200, "10"]);
    const streamed = await hono.request("/", {
      method: "POST",
      body: chunked("0123456789"),
      duplex: "half",
    } as RequestInit);
    expect([streamed.status, await streamed.text()]).toEqual([200, "10"]);
  });

  it("refuses a declared length over the limit with 413, naming the limit", async () => {
    const res = await app(10).request("/", { method: "POST", body: "01234567890" });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: {
        kind: "too_large",
        message: "request body is larger than the limit of 10 bytes",
        details: { max_request_bytes: 10 },
      },
    });
  });

  it("refuses a chunked body once it passes the limit", async () => {
    const res = await app(10).request("/", {
      method: "POST",
      body: chunked("x".repeat(100)),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { kind: string } }).error.kind).toBe("too_large");
  });
});
