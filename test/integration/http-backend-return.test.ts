import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Supervisor } from "../../src/broker/supervisor.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { answerWithMcp } from "../helpers/loopback-mcp.js";
import { connectHttp } from "../helpers/mcp-client.js";

/**
 * A remote MCP server that went away while the broker was not looking: the
 * broker learns it from the next call, whose connection is refused. That
 * call never reached the backend, so it waits for the source's restart, as a
 * call made while the source is known down does, and is sent again.
 */
let broker: TestBroker;
let backend: Server | undefined;
let port = 0;
let instance = 0;

/** A stateless MCP server on the backend's port, whose `instance` tool says which start it is. */
async function listen(): Promise<void> {
  const served = ++instance;
  const server = createServer((req, res) => {
    // No connection kept between calls: a server gone refuses the next one at once.
    res.setHeader("connection", "close");
    const mcp = new McpServer({ name: "returning", version: "1" });
    mcp.registerTool("instance", { description: "Which start of the server answers." }, () => ({
      content: [{ type: "text", text: String(served) }],
    }));
    void answerWithMcp(mcp, req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  backend = server;
}

function stop(): Promise<void> {
  const server = backend!;
  backend = undefined;
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const call = () => broker.post("/meta_call", { path: "/remote/instance", args: {} });

beforeAll(async () => {
  await listen();
  broker = await startBroker({
    tree: [{ path: "/remote", source: { backend: "http", url: `http://127.0.0.1:${port}/mcp` } }],
  });
});
afterAll(async () => {
  await broker?.close();
  if (backend) await stop();
});

describe("an HTTP backend that went away", () => {
  it("the call that finds it gone waits for the restart and is answered by the server back", async () => {
    expect((await call()).body.output.content[0].text).toBe("1");
    await stop();

    // The server comes back as soon as the refused call waits for the source's restart.
    const original = Supervisor.prototype.ready;
    const waited: Promise<unknown>[] = [];
    const ready = vi.spyOn(Supervisor.prototype, "ready").mockImplementation(function (
      this: Supervisor,
      signal,
    ) {
      const router = original.call(this, signal);
      if (router instanceof Promise) waited.push(listen());
      return router;
    });
    try {
      const res = await call();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.output.content[0].text).toBe("2");
      expect(waited).toHaveLength(1);
      expect(ready).toHaveBeenCalledTimes(2);
    } finally {
      ready.mockRestore();
    }
    expect(broker.broker.health().sources["/remote"]).toMatchObject({ up: true, restarts: 1 });
  });

  it("not back: the call is refused saying why the restart failed and when the next is", async () => {
    await stop();
    const res = await call();
    expect(res.status).toBe(503);
    expect(res.body.error.kind).toBe("unavailable");
    expect(res.body.error.message).toMatch(
      /^source \/remote failed to start \(attempt 1\) and is retried: .*nothing listens at that address \(connection refused\) \(next attempt in \d+ s\)$/,
    );
  });
});

describe("a remote backend gone between two rounds of a call", () => {
  it("is not sent the call again: its first round reached the backend", async () => {
    const modern = spawn(
      process.execPath,
      [fileURLToPath(new URL("../fixtures/modern-server.mjs", import.meta.url)), "--http", "0"],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    const fixturePort = await new Promise<number>((resolve) =>
      modern.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    const rounds = await startBroker({
      tree: [
        {
          path: "/m",
          source: { backend: "http", url: `http://127.0.0.1:${fixturePort}/mcp`, name: "m" },
        },
      ],
    });
    const client = await connectHttp(
      rounds.url,
      {},
      {
        path: "/mcp/m",
        client: { capabilities: { sampling: {} } },
      },
    );
    let asked = 0;
    // The backend's question comes as a first round's answer; the backend is gone before the next.
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked += 1;
      const gone = new Promise((resolve) => modern.once("exit", resolve));
      modern.kill("SIGKILL");
      await gone;
      return { role: "assistant", model: "stand-in", content: { type: "text", text: "42" } };
    });
    try {
      const outcome = await client
        .callTool({ name: "ask", arguments: { question: "size?" } })
        .then(JSON.stringify, (err: Error) => err.message);
      expect(outcome).toContain("failed tools/call ask: nothing listens at that address");
      expect(asked).toBe(1);
    } finally {
      await client.close();
      await rounds.close();
      modern.kill();
    }
  });
});

describe("a remote server with a session stream of its own that goes away", () => {
  const CONFORMANCE = fileURLToPath(new URL("../fixtures/conformance-server.mjs", import.meta.url));
  /** The sessionful fixture over HTTP on `port` (0: any), and the port it took. */
  async function sessionful(port: number) {
    const child = spawn(process.execPath, [CONFORMANCE, "--http", String(port)], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    const taken = await new Promise<number>((resolve) =>
      child.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    return { child, port: taken };
  }

  it("is found down by its broken stream, not by the next call, and comes back up with the server", async () => {
    let server = await sessionful(0);
    const watching = await startBroker({
      tree: [
        { path: "/s", source: { backend: "http", url: `http://127.0.0.1:${server.port}/mcp` } },
      ],
    });
    const upOf = () => watching.broker.health().sources["/s"]!.up;
    try {
      expect(upOf()).toBe(true);
      const gone = new Promise((resolve) => server.child.once("exit", resolve));
      server.child.kill("SIGKILL");
      await gone;
      // No call is made: the session's stream, broken, is opened again once, and that fails.
      await expect.poll(upOf, { timeout: 5_000 }).toBe(false);
      server = await sessionful(server.port);
      await expect.poll(upOf, { timeout: 20_000 }).toBe(true);
      const res = await watching.post("/meta_call", { path: "/s/test_simple_text", args: {} });
      expect(res.status).toBe(200);
    } finally {
      await watching.close();
      server.child.kill();
    }
  }, 40_000);
});
