import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capturingLogger, startBroker, type TestBroker } from "../helpers/broker.js";
import { bubblewrap } from "../helpers/bubblewrap.js";
import { ESCAPING, escapingCommandTool } from "../helpers/escaping.js";
import { redisAvailable } from "../helpers/services.js";

/**
 * A sandbox whose network is a list reaches what the list allows, through
 * the broker's egress proxy, and nothing else: a loopback HTTP server on
 * 127.0.0.2 (listed) answers; the same server on 127.0.0.1 (not listed) and
 * Redis are refused, and the refusal is in the broker's log with the
 * source's name. A command source's runs go through a proxy of its own the
 * same way.
 */
const { why } = bubblewrap();
const hasRedis = await redisAvailable();

const servers: Server[] = [];
async function serve(host: string): Promise<string> {
  const server = createServer((_req, res) => res.end(`hello from ${host}`));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return `http://${host}:${(server.address() as { port: number }).port}/`;
}

let broker: TestBroker;
const log = capturingLogger();
let allowed: string;
let other: string;
beforeAll(async () => {
  if (why) return;
  allowed = await serve("127.0.0.2");
  other = await serve("127.0.0.1");
  broker = await startBroker(
    {
      registry: { predefined: false },
      pinning: "off",
      tree: [
        {
          path: "/boxed",
          source: {
            backend: "stdio",
            command: [process.execPath, ESCAPING],
            sandbox: { network: ["127.0.0.2", "*.example.invalid"] },
          },
        },
        {
          path: "/commands",
          source: {
            backend: "command",
            tools: [escapingCommandTool],
            sandbox: { network: ["127.0.0.2"] },
          },
        },
      ],
    },
    { log: log.log },
  );
}, 60_000);
afterAll(async () => {
  await broker?.close();
  for (const server of servers) server.close();
});

const attempt = async (args: Record<string, unknown>): Promise<string> =>
  (await broker.post("/meta_call", { path: "/boxed/attempt", args })).body.output.content[0].text;

describe(`a sandbox whose network is an allowlist ${why}`, () => {
  it.runIf(why === "")("reaches a listed host through the broker's proxy", async () => {
    expect(await attempt({ what: "fetch", path: allowed })).toBe("ok 200 hello from 127.0.0.2");
  });

  it.runIf(why === "")(
    "is refused what is not listed, and the broker logs it with the source",
    async () => {
      expect(await attempt({ what: "fetch", path: other })).toMatch(/^refused/);
      const refusal = log.lines().find((l) => l.msg === "sandbox refused a connection");
      expect(refusal).toMatchObject({ source: "/boxed" });
      expect(refusal!.target).toMatch(/^127\.0\.0\.1:\d+$/);
    },
  );

  it.runIf(why === "")("holds a command source's runs to its list the same way", async () => {
    const command = async (path: string): Promise<string> =>
      (
        await broker.post("/meta_call", {
          path: "/commands/attempt",
          args: { what: "fetch", path },
        })
      ).body.output.structuredContent.answer;
    expect(await command(allowed)).toBe("ok 200 hello from 127.0.0.2");
    expect(await command(other)).toMatch(/^refused/);
    expect(
      log.lines().find((l) => l.msg === "sandbox refused a connection" && l.source === "/commands"),
    ).toBeDefined();
  });

  it.runIf(why === "" && hasRedis)("has no network of its own: Redis is out of reach", async () => {
    expect(await attempt({ what: "connect", host: "127.0.0.1", port: 6379 })).toMatch(
      /^refused (ECONNREFUSED|ENETUNREACH)/,
    );
  });
});
