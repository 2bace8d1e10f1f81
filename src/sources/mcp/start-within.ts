import { type Client, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import type { Logger } from "../../contract/log.js";
import type { BackendConnection } from "./backend-transport.js";
import { failureText } from "./failure-text.js";
import { fetchTools, type FetchedTools } from "./fetch-tools.js";

/** After this long (or half the time a start is given, if less) the log says a source is still starting. */
const SLOW_START_MS = 10_000;

/**
 * Connects a client over a backend's connection and reads its tools, all
 * within one deadline: the SDK's timeout is per request, and a probe and a
 * handshake are two. Closing the client does not end a probe, so the start
 * is raced. Whoever watches the log learns early that a start hangs, not
 * only when it gives up. Rejects with why the start failed, in words for the
 * operator and for callers (never what the backend printed).
 */
export async function startWithin(
  client: Client,
  connection: BackendConnection,
  timeoutMs: number,
  log: Logger,
  source: string,
): Promise<FetchedTools> {
  const notice = Math.min(SLOW_START_MS, timeoutMs / 2);
  const slow = setTimeout(
    () =>
      log.warn(
        { source, backend: connection.describe, waited_s: notice / 1000 },
        `source is slow to start; it is given ${timeoutMs / 1000} s in all`,
      ),
    notice,
  );
  let deadline: NodeJS.Timeout | undefined;
  const expiry = new Promise<"expired">((resolve) => {
    deadline = setTimeout(() => resolve("expired"), timeoutMs);
  });
  const starting = (async () => {
    await client.connect(connection.transport, { timeout: timeoutMs });
    return fetchTools(client);
  })();
  starting.catch(() => undefined);
  try {
    const started = await Promise.race([starting, expiry]);
    if (started === "expired")
      throw new SdkError(SdkErrorCode.RequestTimeout, `no start within ${timeoutMs} ms`);
    return started;
  } finally {
    clearTimeout(slow);
    clearTimeout(deadline);
  }
}

/** Why a start failed, for the operator and for callers: never what the backend printed. */
export function startFailure(
  err: unknown,
  connection: BackendConnection,
  timeoutMs: number,
): string {
  if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
    const within = `it did not finish starting within ${timeoutMs / 1000} s`;
    return connection.pid !== undefined
      ? `${within}: is it an MCP server on stdio? Such a server writes only JSON-RPC to its stdout, its own messages to stderr`
      : within;
  }
  if (connection.exited?.())
    return "the program exited before it finished the MCP handshake (its stderr is in the broker log)";
  return failureText(err);
}
