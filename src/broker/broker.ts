import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { allows, reaches, sees } from "../auth/scopes.js";
import { ConfigError } from "../config/errors.js";
import type { Config, RenderMode, ScopeAction } from "../config/schema.js";
import { BrokerError } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import type { CallerContext, Principal, SourceEvent, SourceStatus } from "../contract/router.js";
import { withDeadline } from "../policy/timeout/index.js";
import { renderResult } from "../output/render.js";
import { truncateOutput } from "../output/truncate.js";
import { compose, policyLinks, type PolicySettings } from "../policy/chain.js";
import { DEFAULT_RESULT_QUOTA } from "../policy/admission/index.js";
import { RateLimits } from "../policy/admission/rate-limits.js";
import type { Next, Outcome, Request, SourceRequestKind, SourceRequests } from "../policy/link.js";
import { openStore } from "../state/open-store.js";
import { sharedKey } from "../state/shared-key.js";
import { isShared, type SharedStore, type StateStore } from "../state/store.js";
import { buildTree } from "../tree/build-tree.js";
import type { Skeleton } from "../tree/skeleton.js";
import { absent, type ToolEntry, type Tree, type TreeEntry } from "../tree/tree.js";
import type { AuditRecord } from "../policy/audit/index.js";
import { AuditSink } from "./audit-sink.js";
import { ToolRegistry } from "../registry/tool-registry.js";
import type { ToolHealth } from "../registry/service-runtime.js";
import { DEFAULT_ALLOWED_HOSTS } from "../net/host-allowlist.js";
import { createBuiltinToolsets } from "../toolsets/builtins.js";
import { dispatch } from "./dispatch.js";
import { PacedTask } from "./paced-task.js";
import { forbidden } from "./forbidden.js";
import { BrokerMetrics } from "./metrics.js";
import { RegistryDesk } from "./registry-desk.js";
import { DEFAULT_REGISTRY_MOUNT, skeletonWithRegistry } from "./registry-tree.js";
import { SourcePool } from "./source-pool.js";
import { SourceView } from "./source-view.js";
import { EmbeddingsClient } from "../tool-search/embeddings-client.js";
import { SemanticIndex } from "../tool-search/semantic-index.js";
import { Thesaurus } from "../tool-search/thesaurus.js";
import { searchableTools } from "../tool-search/tool-documents.js";
import { ToolSearch } from "../tool-search/tool-search.js";
import { describeEntry, foundTool, listChildren } from "./views.js";
import type { EntryDescription, NodeListing, SearchAnswer } from "./meta-api/answers.js";

export interface BrokerOptions {
  readonly log: Logger;
  /** Leave out sources that fail to start and tools that cannot be mounted, with a warning. */
  readonly ignoreBroken?: boolean;
  /**
   * Ends the start when aborted (an operator's Ctrl-C while a slow source starts): what was
   * opened is closed, programs started are ended, and the start rejects with the reason.
   */
  readonly signal?: AbortSignal;
}

/** A `meta_search` request, already checked. */
export interface ToolSearchRequest {
  readonly query: string;
  readonly limit: number;
  /** Only tools under this node. */
  readonly path: string;
  readonly includeSchema: boolean;
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

/**
 * The one entry point of the frontends: the tree, descriptions, and every
 * request to a source (tool calls, resources, prompts, completion, lists),
 * each through the policy chain. It owns the sources, rebuilds the tree whole
 * whenever a source's tools or the config change, and swaps it in at once.
 * No frontend holds a source.
 */
export class Broker {
  private current!: Tree;
  private skeleton!: Skeleton;
  private sources!: SourcePool;
  private toolRegistry: ToolRegistry | undefined;
  /** Changes of the tree (a reload, a registration) one after the other. */
  private applying: Promise<void> = Promise.resolve();
  private readonly treeListeners = new Set<() => void>();
  private readonly sourceListeners = new Set<(source: string, event: SourceEvent) => void>();
  private invoke!: Next;
  /** The config's rate limits, for requests that reach no source (registry methods, searches). */
  private rateLimits = new RateLimits([]);
  private store: StateStore | undefined;
  private auditSink: AuditSink | undefined;
  /** Rebuilds after a source's tools changed, at most a fifth of the event loop however often. */
  private readonly rebuilds = new PacedTask(
    () =>
      this.rebuild(false).catch((err: Error) =>
        this.options.log.error({ err: err.message }, "tree rebuild failed"),
      ),
    REBUILD_SPACING,
  );
  /** Registered tools mounted after a registration, paced as rebuilds are. */
  private readonly registryApplies = new PacedTask(() => {
    this.applying = this.applying
      .then(() => this.apply(this.config, false))
      .then(
        (counts) => this.options.log.debug(counts, "registered tools applied to the tree"),
        (err: Error) =>
          this.options.log.error({ err: err.message }, "applying the registry to the tree failed"),
      );
    return this.applying;
  }, REBUILD_SPACING);
  private toolSearch!: ToolSearch;
  private inputBridgeKey: Uint8Array | undefined;
  readonly metrics: BrokerMetrics;
  /** The tool registry of `/rpc`, under the broker's scopes. */
  registry!: RegistryDesk;
  /** Where frontends log what must not go on the wire: internal errors, refused tokens. */
  readonly log: Logger;

  private constructor(
    private config: Config,
    private readonly options: BrokerOptions,
  ) {
    this.log = options.log;
    this.metrics = new BrokerMetrics(
      () => this.health().sources,
      () => this.health().registry,
    );
  }

  /**
   * Opens the state store and the registry in it, starts every source in
   * parallel and builds the first tree.
   */
  static async start(config: Config, options: BrokerOptions): Promise<Broker> {
    const broker = new Broker(config, options);
    // Checked before anything is opened: a config that cannot work fails at once.
    skeletonWithRegistry(config, []);
    const { signal } = options;
    signal?.throwIfAborted();
    // Sources are what a start waits on: an abort stops them at once, the rest is closed after.
    let interrupted: Promise<void> | undefined;
    const interrupt = () => {
      interrupted = broker.sources?.close();
    };
    signal?.addEventListener("abort", interrupt, { once: true });
    try {
      broker.store = await openStore(config.state ?? "memory", options.log);
      if (isShared(broker.store))
        broker.inputBridgeKey = await sharedKey(broker.store, "input-bridge");
      const registry = await ToolRegistry.open({
        store: broker.store,
        log: options.log,
        healthCheckIntervalS: config.registry?.health_check_interval_s ?? 60,
        allowedHosts: config.registry?.allowed_hosts ?? DEFAULT_ALLOWED_HOSTS,
        maxResponseBytes: config.registry?.max_response_bytes ?? 10 * 1024 * 1024,
        syncIntervalMs: 1000,
        builtins: createBuiltinToolsets(config.toolsets, options.log),
        predefined: config.registry?.predefined ?? true,
      });
      broker.toolRegistry = registry;
      broker.registry = new RegistryDesk(registry, {
        mount: () => broker.config.registry?.mount ?? DEFAULT_REGISTRY_MOUNT,
        fits: (tools) => skeletonWithRegistry(broker.config, tools),
        admit: (principal, path) => broker.admit(principal, path),
        settled: () => broker.registryApplies.settled().then(() => broker.applying),
      });
      broker.sources = new SourcePool(
        options.log,
        registry,
        () => broker.queueRebuild(),
        (source, event) => broker.emitSourceEvent(source, event),
      );
      broker.skeleton = skeletonWithRegistry(config, registry.tools());
      broker.auditSink = new AuditSink(options.log, broker.metrics, config.audit?.file);
      broker.invoke = broker.chain(config);
      broker.toolSearch = createToolSearch(config, broker.store, options.log);
      signal?.throwIfAborted();
      await broker.sources.start(broker.skeleton.mounts, options.ignoreBroken === true);
      signal?.throwIfAborted();
      await broker.rebuild(true);
      registry.onChange(() => broker.queueApply());
    } catch (err) {
      await interrupted;
      await broker.close();
      throw signal?.aborted ? (signal.reason as unknown) : err;
    } finally {
      signal?.removeEventListener("abort", interrupt);
    }
    return broker;
  }

  tree(): Tree {
    return this.current;
  }

  /** The children of a node that the caller may see. */
  list(path: string, principal: Principal): NodeListing {
    this.visible(path, principal);
    const node = this.current.node(path);
    this.mayReach(principal, "tree", node.path);
    const listing = listChildren(this.current, node);
    return {
      ...listing,
      children: listing.children.filter((c) => reaches(principal, "tree", c.path)),
    };
  }

  describe(path: string, principal: Principal): EntryDescription {
    const entry = this.visible(path, principal);
    if (
      entry.type === "tool"
        ? !allows(principal, "describe", entry.path)
        : !reaches(principal, "describe", entry.path)
    ) {
      throw forbidden(principal, "describe", entry.path);
    }
    const statuses = this.sources.statuses();
    const description = describeEntry(this.current, entry, (id) => statuses[id]);
    if (description.type === "tool") return description;
    return {
      ...description,
      children: description.children.filter((c) => reaches(principal, "tree", c.path)),
    };
  }

  /**
   * The tools the caller may call that best fit a request in words, best
   * first, from under `path` only.
   */
  async search(
    request: ToolSearchRequest,
    principal: Principal,
    signal?: AbortSignal,
  ): Promise<SearchAnswer> {
    const tree = this.current;
    const under = this.visible(request.path, principal);
    this.mayReach(principal, "tree", under.path);
    await this.admit(principal, under.path);
    const prefix = under.path === "/" ? "/" : `${under.path}/`;
    const hits = await this.toolSearch.search({
      query: request.query,
      limit: request.limit,
      signal,
      accepts: (path) =>
        (path === under.path || path.startsWith(prefix)) &&
        tree.get(path)?.type === "tool" &&
        allows(principal, "call", path),
    });
    return {
      results: hits.map((hit) => foundTool(tree.tool(hit.path), hit.score, request.includeSchema)),
    };
  }

  /**
   * Takes a token of the config's rate limits for a request at `path` that
   * reaches no source (a search, a registry method): every request a caller
   * can make counts, not only calls. `rate_limited` when a bucket is empty.
   */
  admit(principal: Principal, path: string): Promise<void> {
    return this.rateLimits.admit(this.store!, principal, path);
  }

  /** Resolves when the search index has the synonyms and embeddings of the current tree. */
  searchSettled(): Promise<void> {
    return this.toolSearch.settled();
  }

  /** The leaves a caller may call: what flat tools/list shows it. */
  callableTools(principal: Principal): ToolEntry[] {
    return this.current.tools().filter((leaf) => allows(principal, "call", leaf.path));
  }

  async call(path: string, args: unknown, caller: CallerContext): Promise<CallOutput> {
    this.visible(path, caller.principal);
    const leaf = this.current.tool(path);
    if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) {
      throw new BrokerError(
        "invalid_params",
        `args must be a JSON object of named arguments, not ${Array.isArray(args) ? "an array" : JSON.stringify(args)}`,
        { path: leaf.path },
      );
    }
    const result = (await this.invoke({
      kind: "tools/call",
      path: leaf.path,
      source: leaf.sourceId,
      leaf,
      args: (args ?? {}) as Record<string, unknown>,
      ctx: withDeadline(caller, leaf.timeoutMs),
      limits: leaf.limits,
      timeoutMs: leaf.timeoutMs,
    })) as CallToolResult;
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

  /**
   * A request to a source besides a tool call, through the policy chain,
   * governed at the source's node: its scopes, rate limits, limits, timeout,
   * redaction and audit.
   */
  async request<K extends SourceRequestKind>(
    source: string,
    kind: K,
    params: SourceRequests[K][0],
    caller: CallerContext,
  ): Promise<Outcome<K>> {
    const mount = this.mountNamed(source, caller.principal);
    const node = this.current.node(mount.id);
    // A generic kind cannot narrow the union of requests; `kind` and `params` come from one K.
    const request = {
      kind,
      path: mount.id,
      source: mount.id,
      params,
      ctx: withDeadline(caller, node.timeoutMs),
      limits: node.limits,
      timeoutMs: node.timeoutMs,
    } as Request;
    // The last step answers each kind with the source's method for it; no link changes the kind.
    return (await this.invoke(request)) as Outcome<K>;
  }

  /** The state store when other instances share it (it has a bus), for the frontends' sessions. */
  sharedStore(): SharedStore | undefined {
    return this.store !== undefined && isShared(this.store) ? this.store : undefined;
  }

  /**
   * The key 2026-07-28 request states are sealed with: one for every
   * instance sharing the store, so that any opens what another sealed;
   * undefined where this instance is alone (a key of its own then).
   */
  bridgeKey(): Uint8Array | undefined {
    return this.inputBridgeKey;
  }

  /** Names of the mounted sources, for `/mcp/<name>`: those `principal` may know of, when given. */
  sourceNames(principal?: Principal): string[] {
    return this.skeleton.mounts
      .filter((m) => principal === undefined || sees(principal, m.id))
      .map((m) => m.name);
  }

  /**
   * A source as a frontend may see it; `not_found` names the sources there
   * are (those `principal` may know of, when given, and one it may not is
   * not found either).
   */
  source(name: string, principal?: Principal): SourceView {
    const mount = this.mountNamed(name, principal);
    return new SourceView(
      mount,
      this.sources.kind(mount.id).errorProfile,
      this.sources.introduced(mount.id),
      this.current,
    );
  }

  /** Every source, up or not. */
  allSources(): SourceView[] {
    return this.skeleton.mounts
      .filter((m) => this.sources.has(m.id))
      .map((m) => this.source(m.name));
  }

  /** Ends what a client session holds at the sources (its subscriptions). */
  endSession(session: string): Promise<void> {
    return this.sources.endSession(session);
  }

  /**
   * Each source's state, and each registered tool's health here; `ok` is
   * whether every source is up (a registered service being down is its own
   * affair, not the broker's).
   */
  health(): {
    ok: boolean;
    sources: Record<string, SourceStatus>;
    registry: Record<string, ToolHealth>;
  } {
    const sources = this.sources.statuses();
    return {
      ok: Object.values(sources).every((s) => s.up),
      sources,
      registry: this.registry.health(),
    };
  }

  /** What any source raises on its own, with the source's name; survives reloads. */
  onSourceEvent(listener: (source: string, event: SourceEvent) => void): () => void {
    this.sourceListeners.add(listener);
    return () => this.sourceListeners.delete(listener);
  }

  /** Hears every audit record, with the source it concerns; returns the function that stops it. */
  onAudit(listener: (record: AuditRecord, source: string) => void): () => void {
    return this.auditSink!.listen(listener);
  }

  /** Called after every tree swap (tools changed, config reloaded). */
  onTreeChange(listener: () => void): () => void {
    this.treeListeners.add(listener);
    return () => this.treeListeners.delete(listener);
  }

  /** Applies a new config: sources whose definition changed are restarted, others kept. */
  async reload(config: Config): Promise<void> {
    const run = this.applying.then(async () => {
      const was = restartOnly(this.config);
      const counts = await this.apply(config, true);
      const now = restartOnly(config);
      for (const setting of Object.keys(now)) {
        if (JSON.stringify(was[setting]) === JSON.stringify(now[setting])) continue;
        this.options.log.warn(
          { setting },
          "a change of this setting takes a restart; the running value stays in use",
        );
      }
      this.options.log.info(counts, "config reloaded");
    });
    this.applying = run.catch(() => undefined);
    await run;
  }

  async close(): Promise<void> {
    this.rebuilds.stop();
    this.registryApplies.stop();
    await this.toolRegistry?.close();
    await this.sources?.close();
    await this.store?.close();
    await this.auditSink?.close();
  }

  /** Mounts and unmounts registered tools after a registration, here or on another instance. */
  private queueApply(): void {
    this.registryApplies.request();
  }

  /** The tree for a config and the registered tools: changed sources restarted, others kept. */
  private async apply(
    config: Config,
    newChain: boolean,
  ): Promise<{ kept: number; started: number; stopped: number }> {
    const skeleton = skeletonWithRegistry(config, this.toolRegistry!.tools());
    const { toStart, kept, stopped } = await this.sources.retain(skeleton.mounts);
    this.config = config;
    this.skeleton = skeleton;
    if (newChain) this.invoke = this.chain(config);
    await this.sources.start(toStart, true);
    await this.rebuild(false);
    return { kept, started: toStart.length, stopped };
  }

  /** The policy chain for a config, around the call to the source. */
  private chain(config: Config): Next {
    const rateLimits = (config.rate_limits ?? []).map((r) => ({
      token: r.token,
      path: r.path,
      perMinute: r.per_minute,
      burst: r.burst ?? Math.max(1, Math.floor(r.per_minute / 6)),
    }));
    this.rateLimits = new RateLimits(rateLimits);
    const settings: PolicySettings = {
      store: this.store!,
      rateLimits,
      idempotencyTtlMs: (config.idempotency?.ttl_s ?? 86_400) * 1000,
      idempotencyQuota: {
        maxResultBytes: config.idempotency?.max_result_bytes ?? DEFAULT_RESULT_QUOTA.maxResultBytes,
        maxBytesPerToken:
          config.idempotency?.max_bytes_per_token ?? DEFAULT_RESULT_QUOTA.maxBytesPerToken,
        maxKeysPerToken:
          config.idempotency?.max_keys_per_token ?? DEFAULT_RESULT_QUOTA.maxKeysPerToken,
      },
      redactKeys: config.redact ?? [],
      audit: this.auditSink!.write,
      relayDropped: (path, what) =>
        this.options.log.warn(
          { path, what },
          "a backend relayed more than a request may (relay budget)",
        ),
    };
    return compose(policyLinks(settings), (request) =>
      dispatch(this.sources.ready(request.source), request),
    );
  }

  private mayReach(principal: Principal, action: ScopeAction, path: string): void {
    if (!reaches(principal, action, path)) throw forbidden(principal, action, path);
  }

  /**
   * The entry at `path`, where the caller may know of it: what it may not
   * is answered as what is not there, so neither the answer nor its kind
   * (404, 403, "a tool, not a node") tells a caller what exists beyond its
   * scopes. What it may see but not use is refused later, naming the scope.
   */
  private visible(path: string, principal: Principal): TreeEntry {
    const entry = this.current.lookup(path);
    if (!sees(principal, entry.path)) throw absent(path);
    return entry;
  }

  /** A mount by its source name; `not_found` names the sources the caller may know of. */
  private mountNamed(name: string, principal?: Principal): Skeleton["mounts"][number] {
    const mount = this.skeleton.mounts.find((m) => m.name === name);
    if (
      !mount ||
      !this.sources.has(mount.id) ||
      (principal !== undefined && !sees(principal, mount.id))
    ) {
      throw new BrokerError(
        "not_found",
        `no source named "${name}"; the sources are ${this.sourceNames(principal).join(", ") || "(none)"}`,
        { source: name },
      );
    }
    return mount;
  }

  private emitSourceEvent(source: string, event: SourceEvent): void {
    for (const listener of this.sourceListeners) listener(source, event);
  }

  private queueRebuild(): void {
    if (this.current !== undefined) this.rebuilds.request();
  }

  private async rebuild(initial: boolean): Promise<void> {
    const lists = await Promise.all(
      this.skeleton.mounts.map(async (m) => {
        const tools = this.sources.has(m.id)
          ? await this.sources.listTools(m.id).catch((err: Error) => {
              this.options.log.warn({ source: m.id, err: err.message }, "tools/list failed");
              return [];
            })
          : [];
        return [m.id, tools] as const;
      }),
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
    this.toolSearch.update(searchableTools(tree));
    if (!initial) for (const listener of this.treeListeners) listener();
  }
}

/**
 * After a rebuild of the tree that took T, the next waits at least this many
 * times T: rebuilds take at most a fifth of the event loop, however often a
 * source says its tools changed.
 */
const REBUILD_SPACING = 4;

/** The settings only a restart applies, by name. */
function restartOnly(config: Config): Record<string, unknown> {
  return {
    state: config.state ?? "memory",
    "registry.allowed_hosts": config.registry?.allowed_hosts,
    "registry.health_check_interval_s": config.registry?.health_check_interval_s,
    "registry.max_response_bytes": config.registry?.max_response_bytes,
    "registry.predefined": config.registry?.predefined,
    toolsets: config.toolsets,
    tool_search: config.tool_search,
  };
}

/** The index behind meta_search, as the config asks for it. */
function createToolSearch(config: Config, store: StateStore, log: Logger): ToolSearch {
  const settings = config.tool_search ?? {};
  const embeddings = settings.embeddings;
  return new ToolSearch({
    log,
    thesaurus: settings.synonyms === false ? undefined : new Thesaurus(),
    semantic:
      embeddings === undefined
        ? undefined
        : new SemanticIndex(
            new EmbeddingsClient({
              url: embeddings.url,
              model: embeddings.model,
              apiKey:
                embeddings.api_key_env === undefined
                  ? undefined
                  : process.env[embeddings.api_key_env],
              timeoutMs: (embeddings.timeout_s ?? 10) * 1000,
            }),
            store,
            log,
          ),
  });
}
