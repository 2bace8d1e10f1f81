import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ALLOWED_HOSTS, HostAllowlist } from "./host-allowlist.js";
import { guardedRequest, NotReached, postJson, RequestFailed } from "./guarded-request.js";

/** A real HTTP server on loopback whose answer depends on the path. */
let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    switch (req.url) {
      case "/loop":
        res.writeHead(307, { location: "/loop" });
        return res.end();
      case "/moved":
        res.writeHead(301, { location: "/ok" });
        return res.end();
      case "/hop":
        res.writeHead(308, { location: "/ok" });
        return res.end();
      case "/away":
        res.writeHead(307, { location: "http://10.0.0.1/" });
        return res.end();
      case "/huge":
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ blob: "x".repeat(100_000) }));
      case "/html":
        res.writeHead(502, { "content-type": "text/html" });
        return res.end("<html>Bad Gateway</html>");
      default:
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ ok: true, method: req.method }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const options = (maxBytes = 10_000) => ({
  policy: new HostAllowlist(DEFAULT_ALLOWED_HOSTS),
  maxBytes,
  signal: new AbortController().signal,
});

describe("guardedRequest and postJson", () => {
  it("posts JSON and reads the JSON answer, following a 308 with the same method", async () => {
    expect(await postJson(`${base}/hop`, { a: 1 }, options())).toEqual({
      ok: true,
      method: "POST",
    });
  });

  it("follows a GET through 301 and 302 too, and a POST only through 307 and 308", async () => {
    const got = await guardedRequest(`${base}/moved`, { ...options(), method: "GET" });
    expect(got.url.pathname).toBe("/ok");
    expect(JSON.parse(got.body.toString())).toEqual({ ok: true, method: "GET" });
    const posted = await guardedRequest(`${base}/moved`, { ...options(), method: "POST" });
    expect(posted.status).toBe(301);
  });

  it("follows at most three redirects", async () => {
    await expect(postJson(`${base}/loop`, {}, options())).rejects.toThrow(
      "redirected more than 3 times",
    );
  });

  it("does not follow a redirect outside the allowed hosts", async () => {
    await expect(postJson(`${base}/away`, {}, options())).rejects.toThrow(
      "http://10.0.0.1 is outside registry.allowed_hosts",
    );
  });

  it("stops reading at max_response_bytes", async () => {
    await expect(postJson(`${base}/huge`, {}, options(1000))).rejects.toThrow(
      "answered more than 1000 bytes",
    );
  });

  it("says what came back when it is not JSON, without the body", async () => {
    const failure = await postJson(`${base}/html`, {}, options()).catch((e: Error) => e);
    expect(failure).toBeInstanceOf(RequestFailed);
    expect((failure as Error).message).toBe(
      `${base} answered HTTP 502 with a body that is not JSON (24 bytes)`,
    );
  });

  it("marks a refused connection as never reached, so it may be retried", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await postJson(`http://127.0.0.1:${port}/`, {}, options()).catch(
      (e: Error) => e,
    );
    expect(failure).toBeInstanceOf(NotReached);
    expect((failure as Error).message).toBe(
      `could not reach http://127.0.0.1:${port}: nothing listens at that address (connection refused)`,
    );
  });
});
