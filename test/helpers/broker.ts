import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import type { Logger } from "../../src/contract/log.js";
import { serveHttp, type RunningServer } from "../../src/app/serve.js";

export const FIXTURE = fileURLToPath(new URL("../fixtures/fixture-server.mjs", import.meta.url));
export const silent = pino({ level: process.env.TEST_LOG ?? "silent" });

/** argv for the fixture server, with the Node running the tests. */
export function fixtureCommand(): string[] {
  return [process.execPath, FIXTURE];
}

/**
 * A stdio source of the hand-written JSON-RPC server (fixtures/raw-stdio-server.mjs),
 * for handshakes the SDK's servers never make: `env` sets its revision and silence.
 */
export function rawServerSource(env: {
  RAW_REVISION?: string;
  RAW_UNKNOWN?: "silent";
  RAW_NAP_TWICE?: "1";
}) {
  const server = fileURLToPath(new URL("../fixtures/raw-stdio-server.mjs", import.meta.url));
  return { backend: "stdio", command: [process.execPath, server], env };
}

export function everythingCommand(): string[] {
  return [
    process.execPath,
    fileURLToPath(
      new URL(
        "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        import.meta.url,
      ),
    ),
    "stdio",
  ];
}

/**
 * A test's config in a file of its own. Under MCP_BROKER_TEST_SANDBOX=1 (the
 * `sandboxed` test project) every stdio source of a config that does not
 * say otherwise runs in the default sandbox: the same tests, proving the
 * servers work sandboxed.
 */
export function writeConfig(
  config: unknown,
  dir = mkdtempSync(join(tmpdir(), "mcp-broker-test-")),
): string {
  const file = join(dir, "config.json");
  const sandboxed =
    process.env.MCP_BROKER_TEST_SANDBOX === "1" &&
    typeof config === "object" &&
    config !== null &&
    !("sandbox" in config);
  writeFileSync(
    file,
    JSON.stringify(sandboxed ? { ...config, sandbox: { default: true } } : config, null, 2),
  );
  return file;
}

export interface TestBroker extends RunningServer {
  readonly url: string;
  readonly configFile: string;
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any }>;
}

/** Every child of a node, through as many `meta_tree` answers as it takes (100 each). */
export async function everyChild(
  post: (path: string, body: unknown) => Promise<{ body: any }>,
  path: string,
): Promise<{ path: string; name: string; type: string }[]> {
  const children = [];
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const { body } = await post("/meta_tree", { path, offset });
    children.push(...body.children);
    offset = body.next_offset;
  }
  return children;
}

/** The broker as the CLI runs it, in process, on a free loopback port. */
export async function startBroker(
  config: unknown,
  options: { secret?: string; reload?: boolean; ignoreBroken?: boolean; log?: Logger } = {},
): Promise<TestBroker> {
  const configFile = writeConfig(config);
  const running = await serveHttp({
    host: "127.0.0.1",
    port: 0,
    configFile,
    log: silent,
    ...options,
  });
  const url = `http://127.0.0.1:${running.port}`;
  return {
    ...running,
    broker: running.broker,
    url,
    configFile,
    async post(path, body, headers = {}) {
      const res = await fetch(url + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text, the test says what it expects
      }
      return { status: res.status, body: parsed };
    },
  };
}

/** Whether a process of that id exists (signal 0 checks without sending). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A logger whose JSON lines a test can read back. */
export function capturingLogger(): { log: Logger; lines: () => any[] } {
  const written: string[] = [];
  const log: Logger = pino({ level: "debug" }, { write: (line: string) => written.push(line) });
  return { log, lines: () => written.map((l) => JSON.parse(l)) };
}
