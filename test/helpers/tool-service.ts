import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const SERVICE = fileURLToPath(new URL("../fixtures/tool-service.mjs", import.meta.url));

export type ServiceMode = "healthy" | "slow" | "garbage" | "unhealthy";

export interface ToolService {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** How many tools/call and health/check requests reached it, and the last call's params. */
  stats(): Promise<{ calls: number; checks: number; last: Record<string, unknown> | null }>;
  /** Ends it with SIGKILL, as a crash would. */
  kill(): Promise<void>;
}

/** The registry protocol's tool service as a process of its own on loopback. */
export async function startToolService(
  mode: ServiceMode,
  options: { port?: number; delayMs?: number } = {},
): Promise<ToolService> {
  const args = [SERVICE, mode, "--port", String(options.port ?? 0)];
  if (options.delayMs !== undefined) args.push("--delay-ms", String(options.delayMs));
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`the tool service exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}/`;
  return {
    url,
    port,
    child,
    async stats() {
      return (await (await fetch(`${url}stats`)).json()) as Awaited<
        ReturnType<ToolService["stats"]>
      >;
    },
    kill: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** The protocol's search tool (its registration example), reached at `endpoint`. */
export function searchTool(endpoint: string, extra: Record<string, unknown> = {}) {
  return {
    name: "search_tool",
    description: "Web search functionality",
    category: "SEARCH",
    endpoint,
    functions: [
      {
        name: "web_search",
        description: "Search the web for information",
        parameters: {
          type: "object",
          properties: {
            query: { type: "string", description: "Search query" },
            max_results: { type: "integer", default: 5, minimum: 1, maximum: 20 },
          },
          required: ["query"],
        },
        returns: {
          type: "object",
          properties: {
            results: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  title: { type: "string" },
                  url: { type: "string" },
                  snippet: { type: "string" },
                },
              },
            },
          },
        },
      },
      { name: "echo", description: "Gives back its arguments", parameters: { type: "object" } },
      { name: "scalar", description: "Answers a number", parameters: { type: "object" } },
      { name: "fail", description: "Fails at the service", parameters: { type: "object" } },
      { name: "refuse", description: "Refused by the service", parameters: { type: "object" } },
      { name: "busy", description: "Rate limited by the service", parameters: { type: "object" } },
      { name: "missing", description: "Not at the service", parameters: { type: "object" } },
    ],
    ...extra,
  };
}
