import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Implementation,
  type ServerCapabilities,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import type { CallContext, ChangeKind, Router, SourceNotification } from "../../contract/router.js";
import { packageVersion } from "../../contract/version.js";
import type { BackendConnection, ConnectBackend } from "./backend-transport.js";
import { backendError, isConnectionLost } from "./errors.js";
import { fetchTools } from "./fetch-tools.js";
import { InFlight } from "./in-flight.js";
import { RelayedCallToolResult } from "./relayed-result.js";
import { Subscriptions } from "./subscriptions.js";

/** The SDK's own request timeout is a backstop: the policy's timeout aborts first. */
const BACKSTOP_MS = 1000;

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

/**
 * An MCP server as a source, over any client transport: connected once for
 * all clients; when the connection ends it reports itself down, and the
 * broker's supervisor starts it again. Requests are relayed whole, so a client
 * cannot tell it from the backend. What the backend prints goes to the log
 * only: it may hold secrets.
 */
export class McpSource implements Router, Relayed {
  private client: Client | null = null;
  private connection: BackendConnection | null = null;
  private tools: Tool[] = [];
  private up = false;
  private closed = false;
  private readonly downListeners = new Set<(reason: string) => void>();
  private readonly changeListeners = new Set<(what: ChangeKind) => void>();
  private readonly notificationListeners = new Set<(n: SourceNotification) => void>();
  private readonly inFlight = new InFlight();
  private readonly subscriptions = new Subscriptions();

  constructor(
    readonly name: string,
    private readonly connect: ConnectBackend,
    private readonly log: Logger,
  ) {}

  start(): Promise<void> {
    return this.open();
  }

  instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  capabilities(): ServerCapabilities {
    return this.client?.getServerCapabilities() ?? {};
  }

  serverInfo(): Implementation | undefined {
    return this.client?.getServerVersion();
  }

  async listTools(): Promise<Tool[]> {
    return this.tools;
  }

  callTool(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult> {
    return this.relay(ctx, `tools/call ${name}`, (client, options) =>
      client.request(
        { method: "tools/call", params: { name, arguments: args } },
        RelayedCallToolResult,
        options,
      ),
    );
  }

  listResources: Relayed["listResources"] = (params, ctx) =>
    this.relay(ctx, "resources/list", (c, o) => c.listResources(params, o));
  listResourceTemplates: Relayed["listResourceTemplates"] = (params, ctx) =>
    this.relay(ctx, "resources/templates/list", (c, o) => c.listResourceTemplates(params, o));
  readResource: Relayed["readResource"] = (params, ctx) =>
    this.relay(ctx, `resources/read ${params.uri}`, (c, o) => c.readResource(params, o));
  listPrompts: Relayed["listPrompts"] = (params, ctx) =>
    this.relay(ctx, "prompts/list", (c, o) => c.listPrompts(params, o));
  getPrompt: Relayed["getPrompt"] = (params, ctx) =>
    this.relay(ctx, `prompts/get ${params.name}`, (c, o) => c.getPrompt(params, o));
  complete: Relayed["complete"] = (params, ctx) =>
    this.relay(ctx, "completion/complete", (c, o) => c.complete(params, o));

  async setLoggingLevel(
    level: Parameters<Client["setLoggingLevel"]>[0],
    ctx: CallContext,
  ): Promise<void> {
    await this.relay(ctx, "logging/setLevel", (c, o) => c.setLoggingLevel(level, o));
  }

  async subscribe(uri: string, ctx: CallContext): Promise<void> {
    const session = ctx.session ?? "";
    if (!this.subscriptions.add(uri, session)) return;
    try {
      await this.relay(ctx, `resources/subscribe ${uri}`, (c, o) =>
        c.subscribeResource({ uri }, o),
      );
    } catch (err) {
      this.subscriptions.remove(uri, session);
      throw err;
    }
  }

  async unsubscribe(uri: string, ctx: CallContext): Promise<void> {
    if (!this.subscriptions.remove(uri, ctx.session ?? "")) return;
    await this.relay(ctx, `resources/unsubscribe ${uri}`, (c, o) =>
      c.unsubscribeResource({ uri }, o),
    );
  }

  async endSession(session: string): Promise<void> {
    const client = this.up ? this.client : null;
    for (const uri of this.subscriptions.removeSession(session)) {
      await client?.unsubscribeResource({ uri }).catch(() => undefined);
    }
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
    await client?.close();
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
    const client = new Client(
      { name: "mcp-broker", version: packageVersion },
      { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
    );
    this.wire(client);
    try {
      await client.connect(connection.transport);
      this.tools = await fetchTools(client);
    } catch (err) {
      await client.close().catch(() => undefined);
      this.logLastWords(connection, "source failed to start");
      throw new BrokerError(
        "unavailable",
        `source ${this.name} could not start ${connection.describe}: ${(err as Error).message}; see the broker log`,
        { source: this.name },
      );
    }
    if (this.closed) {
      await client.close();
      return;
    }
    client.onclose = () => this.onExit(client);
    this.client = client;
    this.connection = connection;
    this.up = true;
    await this.resubscribe(client);
    this.log.info(
      { source: this.name, pid: connection.pid?.(), tools: this.tools.length },
      "source up",
    );
  }

  /** Handlers for what the backend sends on its own: notifications and requests. */
  private wire(client: Client): void {
    client.setNotificationHandler(ToolListChangedNotificationSchema, () =>
      this.refreshTools(client),
    );
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () =>
      this.emitChange("resources"),
    );
    client.setNotificationHandler(PromptListChangedNotificationSchema, () =>
      this.emitChange("prompts"),
    );
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) =>
      this.emitNotification(n),
    );
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      if (!this.inFlight.routeLog(n, (log) => this.emitNotification(log))) {
        this.log.debug(
          { source: this.name },
          "log of a shared backend with calls of several sessions in flight: not delivered",
        );
      }
    });
    const toCaller = (r: ServerRequest, extra: { signal: AbortSignal }) =>
      this.inFlight.routeRequest(r, extra.signal) as never;
    client.setRequestHandler(CreateMessageRequestSchema, toCaller);
    client.setRequestHandler(ElicitRequestSchema, toCaller);
    client.setRequestHandler(ListRootsRequestSchema, toCaller);
  }

  /** After a reconnect, the backend is asked again for what sessions still watch. */
  private async resubscribe(client: Client): Promise<void> {
    for (const uri of this.subscriptions.uris()) {
      await client
        .subscribeResource({ uri })
        .catch((err: Error) =>
          this.log.warn({ source: this.name, uri, err: err.message }, "resubscribe failed"),
        );
    }
  }

  private async refreshTools(client: Client): Promise<void> {
    try {
      this.tools = await fetchTools(client);
      this.emitChange("tools");
    } catch (err) {
      this.log.warn(
        { source: this.name, err: (err as Error).message },
        "tools/list after list_changed failed",
      );
    }
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

  /** The backend's last words (a process's stderr) belong in the log, never in an answer. */
  private logLastWords(connection: BackendConnection, msg: string): void {
    const words = connection.lastWords();
    this.log.warn(
      {
        source: this.name,
        backend: connection.describe,
        ...(words.length > 0 ? { stderr: words } : {}),
      },
      msg,
    );
  }

  private emitChange(what: ChangeKind): void {
    for (const listener of this.changeListeners) listener(what);
  }

  private emitNotification(n: SourceNotification): void {
    for (const listener of this.notificationListeners) listener(n);
  }
}
