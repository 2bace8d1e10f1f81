import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { ConfigError } from "../config/errors.js";
import type { Config, RenderMode, ScopeAction } from "../config/schema.js";
import { renderResult } from "../output/render.js";
import { truncateOutput } from "../output/truncate.js";
import { allows, reaches } from "../auth/scopes.js";
import { compose, policyLinks, type Next, type PolicySettings } from "../policy/chain.js";
import { openStore } from "../state/open-store.js";
import type { StateStore } from "../state/store.js";
import { createSource } from "../sources/create-source.js";
import { buildTree } from "../tree/build-tree.js";
import { buildSkeleton, type Mount, type Skeleton } from "../tree/skeleton.js";
import type { ToolEntry, Tree } from "../tree/tree.js";
import { AuditSink } from "./audit-sink.js";
import { BrokerMetrics } from "./metrics.js";
import { BrokerError } from "./errors.js";
import type { Logger } from "./log.js";
import type {
  CallContext,
  ChangeKind,
  Principal,
  SourceNotification,
  SourceStatus,
  SupervisedRouter,
} from "./router.js";
import { describeEntry, listChildren, type EntryDescription, type NodeListing } from "./views.js";
import { checkMounts, sourceDefinition } from "./check-config.js";
import { SourceRelay } from "./source-relay.js";

export interface BrokerOptions {
  readonly log: Logger;
  /** Leave out sources that fail to start and tools that cannot be mounted, with a warning. */
  readonly ignoreBroken?: boolean;
}

export interface CallOutput {
  readonly path: string;
  readonly isError: boolean;
  readonly renderMode: RenderMode;
  /** True when `output` is the truncation wrapper. */
  readonly truncated: boolean;
  /** The result rendered by the tool's `render_mode`, truncated by `max_output_chars`. */
  readonly output: unknown;
  /** The result as the backend gave it, for MCP clients when nothing was rendered or cut. */
  readonly result: CallToolResult;
}

export type SourceEvent =
  | { readonly type: "changed"; readonly what: ChangeKind }
  | { readonly type: "notification"; readonly notification: SourceNotification };

interface Running {
  readonly mount: Mount;
  readonly router: SupervisedRouter;
  readonly definition: string;
  readonly unsubscribe: () => void;
}

/**
 * The one entry point of the frontends: the tree, descriptions, calls. It owns
 * the sources, rebuilds the tree whole whenever a source's tools or the config
 * change, and swaps it in at once.
 */
export class Broker {
  private current!: Tree;
  private skeleton!: Skeleton;
  private running = new Map<string, Running>();
  private readonly treeListeners = new Set<() => void>();
  private readonly sourceListeners = new Set<(source: string, event: SourceEvent) => void>();
  private invoke!: Next;
  private store: StateStore | undefined;
  private auditSink: AuditSink | undefined;
  private rebuildQueued = false;
  readonly metrics: BrokerMetrics;

  private constructor(
    private config: Config,
    private readonly options: BrokerOptions,
  ) {
    this.metrics = new BrokerMetrics(() => this.health().sources);
  }

  /** Opens the state store, starts every source in parallel and builds the first tree. */
  static async start(config: Config, options: BrokerOptions): Promise<Broker> {
    const broker = new Broker(config, options);
    broker.skeleton = broker.validated(config);
    try {
      broker.store = await openStore(config.state ?? "memory");
      broker.auditSink = new AuditSink(options.log, broker.metrics, config.audit?.file);
      broker.invoke = broker.chain(config);
      await broker.startSources(broker.skeleton.mounts);
      await broker.rebuild(true);
    } catch (err) {
      await broker.close();
      throw err;
    }
    return broker;
  }

  tree(): Tree {
    return this.current;
  }

  /** The children of a node that the caller may see. */
  list(path: string, principal: Principal): NodeListing {
    const node = this.current.node(path);
    this.mayReach(principal, "tree", node.path);
    const listing = listChildren(this.current, node);
    return {
      ...listing,
      children: listing.children.filter((c) => reaches(principal, "tree", c.path)),
    };
  }

  describe(path: string, principal: Principal): EntryDescription {
    const entry = this.current.lookup(path);
    if (
      entry.type === "tool"
        ? !allows(principal, "describe", entry.path)
        : !reaches(principal, "describe", entry.path)
    ) {
      throw forbidden(principal, "describe", entry.path);
    }
    const description = describeEntry(this.current, entry, (id) =>
      this.running.get(id)?.router.status(),
    );
    if (description.type === "tool") return description;
    return {
      ...description,
      children: description.children.filter((c) => reaches(principal, "tree", c.path)),
    };
  }

  /** The leaves a caller may call: what flat tools/list shows it. */
  callableTools(principal: Principal): ToolEntry[] {
    return this.current.tools().filter((leaf) => allows(principal, "call", leaf.path));
  }

  async call(path: string, args: unknown, ctx: CallContext): Promise<CallOutput> {
    const leaf = this.current.tool(path);
    if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) {
      throw new BrokerError(
        "invalid_params",
        `args must be a JSON object of named arguments, not ${Array.isArray(args) ? "an array" : JSON.stringify(args)}`,
        { path: leaf.path },
      );
    }
    const result = await this.invoke({
      path: leaf.path,
      leaf,
      args: (args ?? {}) as Record<string, unknown>,
      ctx,
    });
    const rendered = renderResult(result, leaf.renderMode);
    const output = truncateOutput(rendered, leaf.maxOutputChars);
    return {
      path: leaf.path,
      isError: result.isError === true,
      renderMode: leaf.renderMode,
      truncated: output !== rendered,
      output,
      result,
    };
  }

  /** Names of the mounted sources, for `/mcp/<name>`. */
  sourceNames(): string[] {
    return this.skeleton.mounts.map((m) => m.name);
  }

  /** A source served as itself; `not_found` names the sources there are. */
  relay(name: string): SourceRelay {
    const mount = this.skeleton.mounts.find((m) => m.name === name);
    const running = mount === undefined ? undefined : this.running.get(mount.id);
    if (!mount || !running) {
      throw new BrokerError(
        "not_found",
        `no source named "${name}"; the sources are ${this.sourceNames().join(", ") || "(none)"}`,
        { source: name },
      );
    }
    return new SourceRelay(mount, running.router, () => this.current);
  }

  health(): { ok: boolean; sources: Record<string, SourceStatus> } {
    const sources: Record<string, SourceStatus> = {};
    for (const [id, r] of this.running) sources[id] = r.router.status();
    return { ok: Object.values(sources).every((s) => s.up), sources };
  }

  /** What any source raises on its own, with the source's name; survives reloads. */
  onSourceEvent(listener: (source: string, event: SourceEvent) => void): () => void {
    this.sourceListeners.add(listener);
    return () => this.sourceListeners.delete(listener);
  }

  /** Every running source served as itself. */
  relays(): SourceRelay[] {
    return this.skeleton.mounts
      .filter((m) => this.running.has(m.id))
      .map((m) => this.relay(m.name));
  }

  /** Called after every tree swap (tools changed, config reloaded). */
  onTreeChange(listener: () => void): () => void {
    this.treeListeners.add(listener);
    return () => this.treeListeners.delete(listener);
  }

  /** Applies a new config: sources whose definition changed are restarted, others kept. */
  async reload(config: Config): Promise<void> {
    const skeleton = this.validated(config);
    const keep = new Set<string>();
    for (const mount of skeleton.mounts) {
      const old = this.running.get(mount.id);
      if (old && old.definition === sourceDefinition(mount)) keep.add(mount.id);
    }
    const stale = [...this.running.values()].filter((r) => !keep.has(r.mount.id));
    for (const r of stale) this.running.delete(r.mount.id);
    await Promise.all(stale.map((r) => this.stop(r)));
    if ((config.state ?? "memory") !== (this.config.state ?? "memory")) {
      this.options.log.warn("a change of state takes a restart; the running store stays in use");
    }
    this.config = config;
    this.skeleton = skeleton;
    this.invoke = this.chain(config);
    for (const mount of skeleton.mounts) {
      const kept = this.running.get(mount.id);
      if (kept) this.running.set(mount.id, { ...kept, mount });
    }
    await this.startSources(
      skeleton.mounts.filter((m) => !keep.has(m.id)),
      true,
    );
    await this.rebuild(false);
    this.options.log.info(
      { kept: keep.size, started: skeleton.mounts.length - keep.size, stopped: stale.length },
      "config reloaded",
    );
  }

  async close(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((r) => this.stop(r)));
    await this.store?.close();
    await this.auditSink?.close();
  }

  /** The policy chain for a config, around the call to the source. */
  private chain(config: Config): Next {
    const settings: PolicySettings = {
      store: this.store!,
      rateLimits: (config.rate_limits ?? []).map((r) => ({
        token: r.token,
        path: r.path,
        perMinute: r.per_minute,
        burst: r.burst ?? Math.max(1, Math.floor(r.per_minute / 6)),
      })),
      idempotencyTtlMs: (config.idempotency?.ttl_s ?? 86_400) * 1000,
      redactKeys: config.redact ?? [],
      audit: this.auditSink!.write,
    };
    return compose(policyLinks(settings), (call) =>
      this.router(call.leaf.sourceId).callTool(call.leaf.toolName, call.args, call.ctx),
    );
  }

  private mayReach(principal: Principal, action: ScopeAction, path: string): void {
    if (!reaches(principal, action, path)) throw forbidden(principal, action, path);
  }

  private validated(config: Config): Skeleton {
    const problems: string[] = [];
    const skeleton = buildSkeleton(config, problems);
    problems.push(...checkMounts(skeleton.mounts));
    if (problems.length > 0) throw new ConfigError("config", problems);
    return skeleton;
  }

  private async startSources(
    mounts: readonly Mount[],
    tolerate = this.options.ignoreBroken === true,
  ): Promise<void> {
    const started = mounts.map((mount) => {
      const router = createSource(mount, this.options.log);
      const offChange =
        router.onChange?.((what) => {
          if (what === "tools") this.queueRebuild();
          this.emitSourceEvent(mount.name, { type: "changed", what });
        }) ?? (() => undefined);
      const offNotification =
        router.onNotification?.((notification) =>
          this.emitSourceEvent(mount.name, { type: "notification", notification }),
        ) ?? (() => undefined);
      const unsubscribe = () => {
        offChange();
        offNotification();
      };
      this.running.set(mount.id, {
        mount,
        router,
        definition: sourceDefinition(mount),
        unsubscribe,
      });
      return router.start();
    });
    const failures = (await Promise.allSettled(started))
      .map((r, i) =>
        r.status === "rejected" ? `${mounts[i]?.id}: ${(r.reason as Error).message}` : null,
      )
      .filter((f): f is string => f !== null);
    if (failures.length === 0) return;
    if (!tolerate)
      throw new BrokerError("unavailable", `sources failed to start:\n  ${failures.join("\n  ")}`);
    for (const f of failures)
      this.options.log.warn({ problem: f }, "source left out until it starts");
  }

  private async stop(r: Running): Promise<void> {
    r.unsubscribe();
    await r.router
      .close()
      .catch((err: Error) =>
        this.options.log.warn({ source: r.mount.id, err: err.message }, "close failed"),
      );
  }

  private router(id: string): SupervisedRouter {
    const r = this.running.get(id);
    if (!r) throw new BrokerError("unavailable", `source ${id} is not running`, { source: id });
    return r.router;
  }

  private emitSourceEvent(source: string, event: SourceEvent): void {
    for (const listener of this.sourceListeners) listener(source, event);
  }

  private queueRebuild(): void {
    if (this.rebuildQueued || this.current === undefined) return;
    this.rebuildQueued = true;
    queueMicrotask(() => {
      this.rebuildQueued = false;
      this.rebuild(false).catch((err: Error) =>
        this.options.log.error({ err: err.message }, "tree rebuild failed"),
      );
    });
  }

  private async rebuild(initial: boolean): Promise<void> {
    const lists = await Promise.all(
      this.skeleton.mounts.map(async (m): Promise<[string, Tool[]]> => [
        m.id,
        (await this.running.get(m.id)?.router.listTools()) ?? [],
      ]),
    );
    const { tree, problems, warnings } = buildTree(this.config, this.skeleton, new Map(lists));
    for (const w of warnings)
      this.options.log.warn({ problem: w }, "config does not fit the tools");
    if (problems.length > 0) {
      if (initial && this.options.ignoreBroken !== true) {
        throw new ConfigError("tree", [
          ...problems,
          "start with --ignore-broken-tool to leave these out instead",
        ]);
      }
      for (const p of problems) this.options.log.warn({ problem: p }, "tool left out");
    }
    this.current = tree;
    if (!initial) for (const listener of this.treeListeners) listener();
  }
}

function forbidden(principal: Principal, action: ScopeAction, path: string): BrokerError {
  return new BrokerError(
    "forbidden",
    `token "${principal.id}" may not ${action} ${path}: no ${action} scope reaches it`,
    {
      path,
      token: principal.id,
    },
  );
}
