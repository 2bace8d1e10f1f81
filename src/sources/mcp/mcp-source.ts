import {
  type Client,
  ProtocolError,
  type CallToolResult,
  type ClientContext,
  type Implementation,
  type LoggingMessageNotification,
  type RequestOptions,
  type ResourceUpdatedNotification,
  type ServerCapabilities,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/client";
import { z } from "zod";
import { BrokerError, NotDelivered } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import type {
  CacheHint,
  CallContext,
  ChangeKind,
  Router,
  SourceNotification,
} from "../../contract/router.js";
import { newBackendClient } from "./backend-client.js";
import type { BackendConnection, ConnectBackend } from "./backend-transport.js";
import type { ToolListBounds } from "./bounded-tool-lists.js";
import { coalesced } from "./coalesced.js";
import { DEFAULT_START_TIMEOUT_S, type Revision } from "./config.js";
import { ConfiguredRoots } from "./configured-roots.js";
import type { SoleClient } from "../../contract/sole-client.js";
import { backendError, isConnectionLost, neverSent } from "./errors.js";
import { fetchTools } from "./fetch-tools.js";
import { startFailure, startWithin } from "./start-within.js";
import { InFlight } from "./in-flight.js";
import { inRounds } from "./input-rounds.js";
import { perSecond } from "./per-second.js";
import { RelayedCallToolResult } from "./relayed-result.js";
import { SessionInterest } from "./session-interest.js";
import { BACKEND_SOURCE } from "../../telemetry/mcp-attributes.js";
import { backendOperation, withTraceContext } from "../../telemetry/mcp-operation.js";

/** The SDK's own request timeout is a backstop: the policy's timeout aborts first. */
const BACKSTOP_MS = 1000;

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Notifications outside any call relayed a second at most, per source. */
const MAX_NOTIFICATIONS_PER_S = 100;

/** The least time between two reads of a backend's tools after it announced changes. */
const MIN_REFRESH_INTERVAL_MS = 1000;

/** Results of requests relayed whole: checked only as JSON-RPC results. */
const RelayedResult = z.looseObject({});

type Relayed = Required<
  Pick<
    Router,
    | "listResources"
    | "listResourceTemplates"
    | "readResource"
    | "listPrompts"
    | "getPrompt"
    | "complete"
  >
>;

export interface McpSourceSettings {
  /** The revision to speak; `auto` probes. */
  readonly revision?: Revision | undefined;
  /** How long a start (handshake and first tools/list) may take before it counts as failed. */
  readonly startTimeoutMs?: number | undefined;
  /** How much of the backend's tools/list is read. */
  readonly lists?: ToolListBounds | undefined;
  /** Folders the broker gives as the backend's roots, itself; without them, callers are asked. */
  readonly roots?: readonly string[] | undefined;
  /** Where the broker serves one client only: who the backend's requests outside calls are for. */
  readonly soleClient?: SoleClient | undefined;
}

/**
 * An MCP server as a source, over any client transport, in the revision it
 * speaks (probed with `server/discover`, then `initialize`, unless pinned):
 * connected once for all clients; when the connection ends it reports itself
 * down, and the broker's supervisor starts it again. Requests are relayed
 * whole, so a client cannot tell it from the backend. A 2026-07-28 backend's
 * input-required results are answered by the caller of the request that got
 * them, as a 2025-era backend's requests are. What the backend prints goes
 * to the log only: it may hold secrets.
 */
export class McpSource implements Router, Relayed {
  private client: Client | null = null;
  private connection: BackendConnection | null = null;
  /** The connection of a start in progress: closing the source ends it too. */
  private opening: BackendConnection | null = null;
  private tools: Tool[] = [];
  private toolsHint: CacheHint | undefined;
  private up = false;
  private closed = false;
  /** What the last failed start logged, while the source has not come up since. */
  private lastFailure: string | undefined;
  private readonly downListeners = new Set<(reason: string) => void>();
  private readonly changeListeners = new Set<(what: ChangeKind) => void>();
  private readonly notificationListeners = new Set<(n: SourceNotification) => void>();
  private readonly inFlight: InFlight;
  private readonly interest: SessionInterest;
  /**
   * A notification of no call (a log outside any call, a resource update),
   * for every session that listens, at most MAX_NOTIFICATIONS_PER_S a second.
   */
  private readonly emitNotification: (n: SourceNotification) => void;

  private readonly revision: Revision;
  private readonly startTimeoutMs: number;
  private readonly roots: ConfiguredRoots | undefined;

  constructor(
    readonly name: string,
    private readonly connect: ConnectBackend,
    private readonly log: Logger,
    private readonly settings: McpSourceSettings = {},
  ) {
    this.revision = settings.revision ?? "auto";
    this.startTimeoutMs = settings.startTimeoutMs ?? DEFAULT_START_TIMEOUT_S * 1000;
    this.roots = settings.roots && new ConfiguredRoots(settings.roots);
    this.inFlight = new InFlight(settings.soleClient);
    this.interest = new SessionInterest(log, name);
    this.emitNotification = perSecond(
      MAX_NOTIFICATIONS_PER_S,
      (n) => {
        for (const listener of this.notificationListeners) listener(n);
      },
      () =>
        log.warn(
          { source: name },
          `the backend sends more than ${MAX_NOTIFICATIONS_PER_S} notifications a second outside calls; the rest of this second's are dropped`,
        ),
    );
  }

  /** The revision the backend speaks, once connected. */
  protocolVersion(): string | undefined {
    return this.client?.getNegotiatedProtocolVersion();
  }

  start(): Promise<void> {
    return this.open();
  }

  instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  capabilities(): ServerCapabilities {
    return (this.client?.getServerCapabilities() ?? {}) as ServerCapabilities;
  }

  serverInfo(): Implementation | undefined {
    return this.client?.getServerVersion() as Implementation | undefined;
  }

  async listTools(): Promise<Tool[]> {
    return this.tools;
  }

  toolsCacheHint(): CacheHint | undefined {
    return this.toolsHint;
  }

  callTool(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult> {
    return this.rounds(
      ctx,
      `tools/call ${name}`,
      "tools/call",
      { name, arguments: args },
      RelayedCallToolResult,
    );
  }

  listResources: Relayed["listResources"] = (params, ctx) =>
    this.relayWhole(ctx, "resources/list", params);
  listResourceTemplates: Relayed["listResourceTemplates"] = (params, ctx) =>
    this.relayWhole(ctx, "resources/templates/list", params);
  readResource: Relayed["readResource"] = (params, ctx) =>
    this.rounds(ctx, `resources/read ${params.uri}`, "resources/read", params, RelayedResult);
  listPrompts: Relayed["listPrompts"] = (params, ctx) =>
    this.relayWhole(ctx, "prompts/list", params);
  getPrompt: Relayed["getPrompt"] = (params, ctx) =>
    this.rounds(ctx, `prompts/get ${params.name}`, "prompts/get", params, RelayedResult);
  complete: Relayed["complete"] = (params, ctx) =>
    this.relayWhole(ctx, "completion/complete", params);

  async setLoggingLevel(
    level: LoggingMessageNotification["params"]["level"],
    ctx: CallContext,
  ): Promise<void> {
    if (this.interest.keepLevel(this.client, ctx.session ?? "", level)) return;
    await this.relay(ctx, "logging/setLevel", (c, o) => c.setLoggingLevel(level, o));
  }

  async subscribe(uri: string, ctx: CallContext): Promise<void> {
    const session = ctx.session ?? "";
    if (!this.interest.add(uri, session)) return;
    try {
      await this.relay(ctx, `resources/subscribe ${uri}`, (c, o) =>
        this.interest.subscribe(c, uri, o),
      );
    } catch (err) {
      this.interest.remove(uri, session);
      throw err;
    }
  }

  async unsubscribe(uri: string, ctx: CallContext): Promise<void> {
    if (!this.interest.remove(uri, ctx.session ?? "")) return;
    await this.relay(ctx, `resources/unsubscribe ${uri}`, (c, o) =>
      this.interest.unsubscribe(c, uri, o),
    );
  }

  endSession(session: string): Promise<void> {
    return this.interest.endSession(this.up ? this.client : null, session);
  }

  onChange(listener: (what: ChangeKind) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  onNotification(listener: (n: SourceNotification) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  onDown(listener: (reason: string) => void): () => void {
    this.downListeners.add(listener);
    return () => this.downListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    this.up = false;
    await this.interest.close();
    await client?.close();
    await this.opening?.transport.close().catch(() => undefined);
  }

  /** A request relayed whole: the backend's answer is the caller's, unchecked beyond JSON-RPC. */
  private relayWhole<T>(ctx: CallContext, method: string, params: object | undefined): Promise<T> {
    return backendOperation({ method, attributes: { [BACKEND_SOURCE]: this.name } }, (carrier) =>
      this.relay(
        ctx,
        method,
        (client, options) =>
          client.request(
            {
              method,
              params: withTraceContext(
                this.interest.withSessionMeta(client, this.told(ctx), { ...params }),
                carrier,
              ),
            },
            RelayedResult,
            options,
          ) as Promise<T>,
      ),
    );
  }

  /**
   * A request whose 2026-07-28 answer may be input-required: each round's
   * questions go to the caller (its client, through the frontend), and its
   * answers, with the backend's request state, to the next round.
   */
  private rounds<T>(
    ctx: CallContext,
    what: string,
    method: string,
    params: object,
    schema: z.ZodType,
  ): Promise<T> {
    const named = params as { name?: unknown; uri?: unknown };
    const target = method === "resources/read" ? named.uri : named.name;
    const op = {
      method,
      target: typeof target === "string" ? target : undefined,
      attributes: { [BACKEND_SOURCE]: this.name },
    };
    return backendOperation(op, (carrier) =>
      this.relay(ctx, what, (client, options, answered) =>
        inRounds<T>(
          client,
          {
            method,
            params: withTraceContext(
              this.interest.withSessionMeta(client, this.told(ctx), { ...params }),
              carrier,
            ),
          },
          schema,
          options,
          ctx,
          { source: this.name, what },
          this.roots,
          answered,
        ),
      ),
    );
  }

  /** The caller as the backend is told of it: able to give roots where the source has its own. */
  private told(ctx: CallContext): CallContext {
    return this.roots ? this.roots.offeredIn(ctx) : ctx;
  }

  /**
   * Runs one request at the backend on behalf of a caller, tracked while in
   * flight. `send` calls `answered` when an answer came (a round of a
   * multi-round request): after that, no failure means it was never sent.
   */
  private relay<T>(
    ctx: CallContext,
    what: string,
    send: (client: Client, options: RequestOptions, answered: () => void) => Promise<T>,
  ): Promise<T> {
    const client = this.connected();
    let reached = false;
    const options: RequestOptions = {
      signal: ctx.signal,
      timeout: Math.max(1, ctx.deadline - Date.now()) + BACKSTOP_MS,
      onprogress: ctx.progress,
    };
    return this.inFlight.track(ctx, async () => {
      try {
        return await send(client, options, () => (reached = true));
      } catch (err) {
        if (ctx.signal.aborted) throw backendError(ctx.signal.reason, this.name, what);
        // What the answer leaves out (an error page the backend sent) is here.
        if (!(err instanceof ProtocolError))
          this.log.warn({ source: this.name, what, err: errorText(err) }, "backend request failed");
        const error = backendError(err, this.name, what);
        if (!reached && neverSent(err)) {
          // The source is down before the caller hears of it: the request waits for the restart.
          await client.close().catch(() => undefined);
          throw new NotDelivered(error);
        }
        // A remote backend that went away shows only as failed requests: reconnect it.
        if (isConnectionLost(err)) void client.close();
        throw error;
      }
    });
  }

  private connected(): Client {
    if (this.up && this.client) return this.client;
    throw new BrokerError("unavailable", `source ${this.name} is down and being restarted`, {
      source: this.name,
    });
  }

  private async open(): Promise<void> {
    const connection = this.connect();
    this.opening = connection;
    const client = newBackendClient(connection, {
      revision: this.revision,
      startTimeoutMs: this.startTimeoutMs,
      lists: this.settings.lists,
      log: this.log,
      source: this.name,
    });
    this.wire(client);
    try {
      ({ tools: this.tools, hint: this.toolsHint } = await startWithin(
        client,
        connection,
        this.startTimeoutMs,
        this.log,
        this.name,
      ));
    } catch (err) {
      // Read before the connection is closed here, which would end its process.
      const why = startFailure(err, connection, this.startTimeoutMs);
      await client.close().catch(() => undefined);
      // A client whose connect never finished does not own the transport yet: its process lives on.
      await connection.transport.close().catch(() => undefined);
      if (!this.closed) this.logLastWords(connection, "source failed to start", err);
      throw new BrokerError(
        "unavailable",
        `source ${this.name} could not start ${connection.describe}: ${why}`,
        { source: this.name },
      );
    } finally {
      this.opening = null;
    }
    if (this.closed) {
      await client.close();
      return;
    }
    const offRootsChanged = this.passRootsChanges(client);
    client.onclose = () => {
      offRootsChanged();
      this.onExit(client);
    };
    this.client = client;
    this.connection = connection;
    this.up = true;
    this.lastFailure = undefined;
    await this.interest.restore(client);
    this.log.info(
      {
        source: this.name,
        pid: connection.pid?.(),
        tools: this.tools.length,
        revision: client.getNegotiatedProtocolVersion(),
      },
      "source up",
    );
  }

  /** Handlers for what the backend sends on its own: notifications and requests. */
  private wire(client: Client): void {
    const refreshTools = coalesced(MIN_REFRESH_INTERVAL_MS, () => this.refreshTools(client));
    client.setNotificationHandler("notifications/tools/list_changed", refreshTools);
    client.setNotificationHandler("notifications/resources/list_changed", () =>
      this.emitChange("resources"),
    );
    client.setNotificationHandler("notifications/prompts/list_changed", () =>
      this.emitChange("prompts"),
    );
    client.setNotificationHandler("notifications/resources/updated", (n) =>
      this.emitNotification(n as ResourceUpdatedNotification),
    );
    client.setNotificationHandler("notifications/message", (n) => {
      const log = n as LoggingMessageNotification;
      if (!this.inFlight.routeLog(log, (l) => this.emitNotification(l))) {
        this.log.debug(
          { source: this.name },
          "log of a shared backend with calls of several sessions in flight: not delivered",
        );
      }
    });
    const toCaller = (r: unknown, ctx: ClientContext) =>
      this.inFlight.routeRequest(r as ServerRequest, ctx.mcpReq.signal) as never;
    client.setRequestHandler("sampling/createMessage", toCaller);
    client.setRequestHandler("elicitation/create", toCaller);
    const roots = this.roots;
    client.setRequestHandler("roots/list", roots ? () => roots.list() : toCaller);
  }

  /**
   * Tells the backend when the sole client's roots change, as that client
   * would tell a server of its own; the backend then asks for them again.
   * A source with roots of its own has nothing to pass on.
   */
  private passRootsChanges(client: Client): () => void {
    const sole = this.settings.soleClient;
    if (!sole || this.roots) return () => undefined;
    return sole.onRootsChanged(() => {
      client
        .sendRootsListChanged()
        .catch((err: Error) =>
          this.log.debug({ source: this.name, err: err.message }, "roots/list_changed not sent"),
        );
    });
  }

  /** Reads the tools again after `list_changed`; false once the connection is not the source's. */
  private async refreshTools(client: Client): Promise<boolean> {
    if (this.closed || (this.client !== null && this.client !== client)) return false;
    try {
      ({ tools: this.tools, hint: this.toolsHint } = await fetchTools(client));
      this.emitChange("tools");
    } catch (err) {
      this.log.warn(
        { source: this.name, err: (err as Error).message },
        "tools/list after list_changed failed",
      );
    }
    return true;
  }

  private onExit(client: Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.up = false;
    if (this.closed) return;
    const connection = this.connection;
    if (connection) this.logLastWords(connection, "source closed its connection");
    const limit = connection?.whyEnded?.();
    const reason = limit
      ? `its sandbox ended it: ${limit}`
      : `${connection?.pid ? "the backend process ended or closed its output" : "the backend closed the connection"}; see the broker log`;
    if (limit) this.log.warn({ source: this.name, why: limit }, "sandbox limit ended the source");
    for (const listener of this.downListeners) listener(reason);
  }

  /**
   * The backend's last words (a process's stderr), and the error as the SDK
   * gave it, belong in the log, never in an answer.
   */
  private logLastWords(connection: BackendConnection, msg: string, err?: unknown): void {
    const words = connection.lastWords();
    const said = {
      source: this.name,
      backend: connection.describe,
      ...(err === undefined ? {} : { err: errorText(err) }),
      ...(words.length > 0 ? { stderr: words } : {}),
    };
    // A start that fails again the same way (a server down for an hour, retried every 30 s)
    // is the supervisor's line each time; its raw error and last words, once.
    const failure = err === undefined ? undefined : JSON.stringify(said);
    const again = failure !== undefined && failure === this.lastFailure;
    if (failure !== undefined) this.lastFailure = failure;
    this.log[again ? "debug" : "warn"](said, msg);
  }

  private emitChange(what: ChangeKind): void {
    for (const listener of this.changeListeners) listener(what);
  }
}
