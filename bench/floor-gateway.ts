/**
 * The floor for a gateway in front of a stdio MCP server: the least any
 * implementation on Node.js could do per call. One POST, one JSON parse, the
 * request's id remapped, one line to the server's stdin; the answer's line
 * parsed, its id put back, and sent as plain JSON. No sessions, no streams,
 * no policy, no validation. The server is initialized once, at start, and a
 * client's `initialize` is answered with its result. Prints its port on
 * stdout. `node floor-gateway.js COMMAND ARGS…`
 */
import { spawn } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import { createInterface } from "node:readline";

const [command, ...args] = process.argv.slice(2);
const server = spawn(command!, args, { stdio: ["pipe", "pipe", "inherit"] });
const waiting = new Map<number, (message: { id?: unknown }) => void>();
let nextId = 0;

createInterface({ input: server.stdout! }).on("line", (line) => {
  const message = JSON.parse(line) as { id?: unknown };
  if (typeof message.id !== "number") return;
  const answer = waiting.get(message.id);
  waiting.delete(message.id);
  answer?.(message);
});

function ask(message: Record<string, unknown>): Promise<{ id?: unknown }> {
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    server.stdin!.write(`${JSON.stringify({ ...message, id })}\n`);
  });
}

const initialized = await ask({
  jsonrpc: "2.0",
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "floor", version: "1" },
  },
});
server.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);

function send(res: ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

const http = createServer((req, res) => {
  if (req.method !== "POST") return send(res, 405);
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      id?: unknown;
      method?: string;
    };
    if (message.id === undefined) return send(res, 202);
    if (message.method === "initialize") return send(res, 200, { ...initialized, id: message.id });
    void ask(message).then((answer) => send(res, 200, { ...answer, id: message.id }));
  });
});
http.listen(0, "127.0.0.1", () => {
  const address = http.address();
  console.log(String(typeof address === "object" && address ? address.port : 0));
});
process.on("SIGINT", () => {
  server.kill();
  process.exit(0);
});
