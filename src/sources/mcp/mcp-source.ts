import {
  Client,
  ProtocolError,
  type CallToolResult,
  type ClientContext,
  type Implementation,
  type LoggingLevel,
  type LoggingMessageNotification,
  type McpSubscription,
  type RequestOptions,
  type ResourceUpdatedNotification,
  type ServerCapabilities,
  type ServerRequest,
  type SubscriptionFilter,
  type Tool,
  type VersionNegotiationMode,
} from "@modelcontextprotocol/client";
import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import type {
  CacheHint,
  CallContext,
  ChangeKind,
  Router,
  SourceNotification,
} from "../../contract/router.js";
import { packageVersion } from "../../contract/version.js";
import type { BackendConnection, ConnectBackend } from "./backend-transport.js";
import { DEFAULT_MAX_TOOLS } from "../../config/schema.js";
import { boundToolLists, type ToolListBounds } from "./bounded-tool-lists.js";
import { DEFAULT_MAX_LIST_PAGES, DEFAULT_START_TIMEOUT_S, type Revision } from "./config.js";
import { backendError, isConnectionLost } from "./errors.js";
import { fetchTools } from "./fetch-tools.js";
import { startFailure, startWithin } from "./start-within.js";
import { InFlight } from "./in-flight.js";
import { inRounds, withCallerMeta } from "./input-rounds.js";
import { RelayedCallToolResult } from "./relayed-result.js";
import { Subscriptions } from "./subscriptions.js";
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

/** Whether the connection speaks 2026-07-28 or later (revisions are dates, so they compare as text). */
function speaksModern(client: Client): boolean {
  return (client.getNegotiatedProtocolVersion() ?? "") >= "2026-07-28";
}

const NEGOTIATION: Record<Revision, VersionNegotiationMode> = {
  auto: "auto",
  "2026-07-28": { pin: "2026-07-28" },
  "2025-11-25": "legacy",
};

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
  private readonly downListeners = new Set<(reason: string) => void>();
  private readonly changeListeners = new Set<(what: ChangeKind) => void>();
  private readonly notificationListeners = new Set<(n: SourceNotification) => void>();
  private readonly inFlight = new InFlight();
  private readonly subscriptions = new Subscriptions();
  private listening: McpSubscription | undefined;
  /** Listens are opened one at a time, so the last one opened has every URI. */
  private pendingListen: Promise<void> = Promise.resolve();
  /**
   * The log level each session asked for with `logging/setLevel`. A
   * 2026-07-28 backend has no such method: the level travels in the `_meta`
   * of each of the session's requests instead.
   */
  private readonly logLevels = new Map<string, LoggingLevel>();
  /** The second notifications outside calls are counted in, and the count. */
  private notificationSecond = 0;
  private notificationsThisSecond = 0;
  /** A read of the tools after list_changed is under way; another is due after it. */
  private refreshing = false;
  private refreshAgain = false;

  private readonly revision: Revision;
  private readonly startTimeoutMs: number;

  constructor(
    readonly name: string,
    private readonly connect: ConnectBackend,
    private readonly log: Logger,
    private readonly settings: McpSourceSettings = {},
  ) {
    this.revision = settings.revision ?? "auto";
    this.startTimeoutMs = settings.startTimeoutMs ?? DEFAULT_START_TIMEOUT_S * 1000;
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
    if (this.client !== null && speaksModern(this.client)) {
      this.logLevels.set(ctx.session ?? "", level);
      return;
    }
    await this.relay(ctx, "logging/setLevel", (c, o) => c.setLoggingLevel(level, o));
  }

  async subscribe(uri: string, ctx: CallContext): Promise<void> {
    const session = ctx.session ?? "";
    if (!this.subscriptions.add(uri, session)) return;
    try {
      await this.relay(ctx, `resources/subscribe ${uri}`, (c, o) =>
        speaksModern(c) ? this.listen(c, o) : c.subscribeResource({ uri }, o).then(() => undefined),
      );
    } catch (err) {
      this.subscriptions.remove(uri, session);
      throw err;
    }
  }

  async unsubscribe(uri: string, ctx: CallContext): Promise<void> {
    if (!this.subscriptions.remove(uri, ctx.session ?? "")) return;
    await this.relay(ctx, `resources/unsubscribe ${uri}`, (c, o) =>
      speaksModern(c) ? this.listen(c, o) : c.unsubscribeResource({ uri }, o).then(() => undefined),
    );
  }

  async endSession(session: string): Promise<void> {
    this.logLevels.delete(session);
    const client = this.up ? this.client : null;
    const orphaned = this.subscriptions.removeSession(session);
    if (client === null || orphaned.length === 0) return;
    if (speaksModern(client)) {
      await this.listen(client).catch(() => undefined);
      return;
    }
    for (const uri of orphaned) await client.unsubscribeResource({ uri }).catch(() => undefined);
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
    await this.listening?.close().catch(() => undefined);
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
              params: withTraceContext(this.withSessionMeta(client, ctx, { ...params }), carrier),
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
      this.relay(ctx, what, (client, options) =>
        inRounds<T>(
          client,
          {
            method,
            params: withTraceContext(this.withSessionMeta(client, ctx, { ...params }), carrier),
          },
          schema,
          options,
          ctx,
          { source: this.name, what },
        ),
      ),
    );
  }

  /** What a 2026-07-28 backend hears of the caller and its session in each request (input-rounds.ts). */
  private withSessionMeta<P extends { _meta?: Record<string, unknown> }>(
    client: Client,
    ctx: CallContext,
    params: P,
  ): P {
    if (!speaksModern(client)) return params;
    return withCallerMeta(params, ctx, this.logLevels.get(ctx.session ?? ""));
  }

  /** Runs one request at the backend on behalf of a caller, tracked while in flight. */
  private relay<T>(
    ctx: CallContext,
    what: string,
    send: (client: Client, options: RequestOptions) => Promise<T>,
  ): Promise<T> {
    const client = this.connected();
    const options: RequestOptions = {
      signal: ctx.signal,
      timeout: Math.max(1, ctx.deadline - Date.now()) + BACKSTOP_MS,
      onprogress: ctx.progress,
    };
    return this.inFlight.track(ctx, async () => {
      try {
        return await send(client, options);
      } catch (err) {
        // A remote backend that went away shows only as failed requests: reconnect it.
        if (!ctx.signal.aborted && isConnectionLost(err)) void client.close();
        // What the answer leaves out (an error page the backend sent) is here.
        if (!ctx.signal.aborted && !(err instanceof ProtocolError))
          this.log.warn({ source: this.name, what, err: errorText(err) }, "backend request failed");
        throw backendError(ctx.signal.aborted ? ctx.signal.reason : err, this.name, what);
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
    const client = new Client(
      { name: "mcp-broker", version: packageVersion },
      {
        capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } },
        versionNegotiation: {
          mode: NEGOTIATION[this.revision],
          // On stdio a probe that gets no answer means a 2025-era server that ignores unknown
          // methods: half the start leaves it the other half for `initialize`.
          ...(connection.pid !== undefined
            ? { probe: { timeoutMs: this.startTimeoutMs / 2 } }
            : {}),
        },
        // Rounds of input are the caller's to answer, through `rounds`.
        inputRequired: { autoFulfill: false },
        // Bounded by boundToolLists below, which keeps what fits rather than failing the walk.
        listMaxPages: 0,
      },
    );
    const lists = this.settings.lists ?? {
      maxTools: DEFAULT_MAX_TOOLS,
      maxPages: DEFAULT_MAX_LIST_PAGES,
    };
    boundToolLists(client, lists, (why) =>
      this.log.warn(
        { source: this.name, max_tools: lists.maxTools, max_list_pages: lists.maxPages },
        why === "tools"
          ? `the backend lists more than ${lists.maxTools} tools; the rest are left out (max_tools)`
          : `the backend's tools/list goes on past ${lists.maxPages} pages; the rest are left out (max_list_pages)`,
      ),
    );
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
    client.onclose = () => this.onExit(client);
    this.client = client;
    this.connection = connection;
    this.up = true;
    // What sessions still watch is asked for again: a 2026-07-28 backend in the listen.
    if (speaksModern(client)) {
      await this.listen(client).catch((err: Error) =>
        this.log.warn({ source: this.name, err: err.message }, "subscriptions/listen failed"),
      );
    } else {
      await this.resubscribe(client);
    }
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
    client.setNotificationHandler("notifications/tools/list_changed", () =>
      this.refreshTools(client),
    );
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
    client.setRequestHandler("roots/list", toCaller);
  }

  /**
   * The lists a 2026-07-28 backend announces changes of, and the resources
   * sessions subscribed to: that revision has no `resources/subscribe`, a
   * listen names them instead.
   */
  private listenFilter(client: Client): SubscriptionFilter {
    const caps = client.getServerCapabilities() ?? {};
    const uris = this.subscriptions.uris();
    return {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(uris.length > 0 ? { resourceSubscriptions: uris } : {}),
    };
  }

  /**
   * A 2026-07-28 backend says what changed only on a `subscriptions/listen`
   * stream: one is opened when the source comes up, and again whenever the
   * subscribed resources change, the new one first and then the one before
   * closed (an update may come twice for a moment, none is missed). Where
   * there is nothing to hear of, none stays open.
   */
  private listen(client: Client, options: RequestOptions = {}): Promise<void> {
    const next = this.pendingListen.then(async () => {
      const previous = this.listening;
      const filter = this.listenFilter(client);
      // The listen outlives the request that asked for it: only its acknowledgement is timed.
      this.listening =
        Object.keys(filter).length === 0
          ? undefined
          : await client.listen(filter, { timeout: options.timeout });
      await previous?.close().catch(() => undefined);
    });
    this.pendingListen = next.catch(() => undefined);
    return next;
  }

  /** After a reconnect, a 2025-era backend is asked again for what sessions still watch. */
  private async resubscribe(client: Client): Promise<void> {
    for (const uri of this.subscriptions.uris()) {
      await client
        .subscribeResource({ uri })
        .catch((err: Error) =>
          this.log.warn({ source: this.name, uri, err: err.message }, "resubscribe failed"),
        );
    }
  }

  /**
   * Reads the tools again after `list_changed`: one read at a time, and
   * announcements that come meanwhile are served by one more read, at least
   * a second after the last began. A backend announcing changes in a loop
   * costs one tools/list a second, not one per announcement.
   */
  private refreshTools(client: Client): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    void (async () => {
      let began = 0;
      do {
        this.refreshAgain = false;
        const wait = began + MIN_REFRESH_INTERVAL_MS - Date.now();
        if (wait > 0) await delay(wait);
        // Closed, or connected anew meanwhile: the new connection read its own tools.
        if (this.closed || (this.client !== null && this.client !== client)) break;
        began = Date.now();
        try {
          ({ tools: this.tools, hint: this.toolsHint } = await fetchTools(client));
          this.emitChange("tools");
        } catch (err) {
          this.log.warn(
            { source: this.name, err: (err as Error).message },
            "tools/list after list_changed failed",
          );
        }
      } while (this.refreshAgain);
      this.refreshing = false;
    })();
  }

  private onExit(client: Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.up = false;
    if (this.closed) return;
    const connection = this.connection;
    if (connection) this.logLastWords(connection, "source closed its connection");
    const reason = `${connection?.pid ? "the backend process ended or closed its output" : "the backend closed the connection"}; see the broker log`;
    for (const listener of this.downListeners) listener(reason);
  }

  /**
   * The backend's last words (a process's stderr), and the error as the SDK
   * gave it, belong in the log, never in an answer.
   */
  private logLastWords(connection: BackendConnection, msg: string, err?: unknown): void {
    const words = connection.lastWords();
    this.log.warn(
      {
        source: this.name,
        backend: connection.describe,
        ...(err === undefined ? {} : { err: errorText(err) }),
        ...(words.length > 0 ? { stderr: words } : {}),
      },
      msg,
    );
  }

  private emitChange(what: ChangeKind): void {
    for (const listener of this.changeListeners) listener(what);
  }

  /**
   * A notification of no call (a log outside any call, a resource update),
   * for every session that listens: at most MAX_NOTIFICATIONS_PER_S a second,
   * the rest dropped, with a log line for each second that drops some.
   */
  private emitNotification(n: SourceNotification): void {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.notificationSecond) {
      this.notificationSecond = second;
      this.notificationsThisSecond = 0;
    }
    if (++this.notificationsThisSecond > MAX_NOTIFICATIONS_PER_S) {
      if (this.notificationsThisSecond === MAX_NOTIFICATIONS_PER_S + 1) {
        this.log.warn(
          { source: this.name },
          `the backend sends more than ${MAX_NOTIFICATIONS_PER_S} notifications a second outside calls; the rest of this second's are dropped`,
        );
      }
      return;
    }
    for (const listener of this.notificationListeners) listener(n);
  }
}
