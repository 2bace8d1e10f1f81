import type { CallToolResult } from "@modelcontextprotocol/server";
import { allows, reaches, sees } from "../auth/scopes.js";
import { ConfigError } from "../config/errors.js";
import type { Config, ScopeAction } from "../config/schema.js";
import { BrokerError } from "../contract/errors.js";
import { nameMeant } from "../contract/did-you-mean.js";
import type { Logger } from "../contract/log.js";
import type { SoleClient } from "../contract/sole-client.js";
import type { CallerContext, Principal, SourceEvent, SourceStatus } from "../contract/router.js";
import { withDeadline } from "../policy/timeout/index.js";
import { renderResult } from "../output/render.js";
import { truncateOutput } from "../output/truncate.js";
import type { Outcome, Request, SourceRequestKind, SourceRequests } from "../policy/link.js";
import { isShared, type SharedStore } from "../state/store.js";
import type { Mount, Skeleton } from "../tree/skeleton.js";
import { absent, type ToolEntry, type Tree, type TreeEntry } from "../tree/tree.js";
import type { AuditRecord } from "../policy/audit/index.js";
import type { ToolHealth } from "../registry/service-runtime.js";
import { closeBrokerParts, openBrokerParts, type BrokerParts } from "./broker-parts.js";
import { PacedTask } from "./paced-task.js";
import { forbidden } from "./forbidden.js";
import { BrokerMetrics } from "./metrics.js";
import { policyFor, type Policy } from "./policy-for.js";
import { RegistryDesk } from "./registry-desk.js";
import { DEFAULT_REGISTRY_MOUNT, skeletonWithRegistry } from "./registry-tree.js";
import { SourceView } from "./source-view.js";
import { searchableTools } from "../tool-search/tool-documents.js";
import { treeOfSources } from "./tree-of-sources.js";
import {
  describeEntry,
  firstChildren,
  foundTool,
  namedFew,
  pageOf,
  summarizeEntry,
} from "./views.js";
import type { SourceSandbox } from "../config/sandbox-schema.js";
import { sandboxPlanOf } from "../isolation/sandbox/sandbox-plan.js";
import type {
  SandboxDescription,
  CallOutput,
  EntryDescription,
  EntrySummary,
  NodeListing,
  RunAnswer,
  SearchAnswer,
  ToolSearchRequest,
  TypescriptDescription,
} from "./meta-api/answers.js";
import { isWithin, normalizePath } from "../tree/path.js";
import type { DefinitionChange, PinRecord } from "../pinning/pin-book.js";
import { heldBack, pinningNote } from "./definition-notes.js";
import { salientQuery } from "../tool-search/salient-query.js";
import { MAX_QUERY_CHARS, TREE_PAGE } from "./meta-api/requests.js";
import { typescriptDeclarations } from "../tree/typescript-declarations.js";
import { runScript } from "./meta-run.js";
import { runSettingsOf } from "./run-settings.js";
import { digestOf } from "../contract/digest.js";
import { ApprovalRules } from "../tasks/approval-rules.js";
import { TaskBook } from "../tasks/task-book.js";
import { ApprovalDesk } from "./approval-desk.js";
import { TaskDesk, type TaskSettings } from "./task-desk.js";

export interface BrokerOptions {
  readonly log: Logger;
  /** Leave out sources that fail to start and tools that cannot be mounted, with a warning. */
  readonly ignoreBroken?: boolean;
  /**
   * Ends the start when aborted (an operator's Ctrl-C while a slow source starts): what was
   * opened is closed, programs started are ended, and the start rejects with the reason.
   */
  readonly signal?: AbortSignal;
  /**
   * The sources start once this resolves (an HTTP server listening): their
   * start is main-thread work, and the first answers need none of it. A
   * rejection ends the start with its reason.
   */
  readonly startAfter?: Promise<void>;
  /** The one client this broker serves, where it serves no other (stdio). */
  readonly soleClient?: SoleClient;
}

/**
 * The one entry point of the frontends: the tree, descriptions, and every
 * request to a source (tool calls, resources, prompts, completion, lists),
 * each through the policy chain. It owns the sources, rebuilds the tree whole
 * whenever a source's tools or the config change, and swaps it in at once.
 * No frontend holds a source.
 */
export class Broker {
  /** Changes of the tree (a reload, a registration) one after the other. */
  private applying: Promise<void> = Promise.resolve();
  private readonly treeListeners = new Set<() => void>();
  private readonly sourceListeners = new Set<(source: string, event: SourceEvent) => void>();
  /** Rebuilds after a source's tools changed, at most a fifth of the event loop however often. */
  private readonly rebuilds = new PacedTask(
    () =>
      this.rebuild().catch((err: Error) =>
        this.log.error({ err: err.message }, "tree rebuild failed"),
      ),
    REBUILD_SPACING,
  );
  /** Registered tools mounted after a registration, paced as rebuilds are. */
  private readonly registryApplies = new PacedTask(() => {
    this.applying = this.applying
      .then(() => this.apply(this.config, false))
      .then(
        (counts) => this.log.debug(counts, "registered tools applied to the tree"),
        (err: Error) =>
          this.log.error({ err: err.message }, "applying the registry to the tree failed"),
      );
    return this.applying;
  }, REBUILD_SPACING);
  private policy: Policy;
  /** The tool registry of `/rpc`, under the broker's scopes. */
  readonly registry: RegistryDesk;
  /** Where frontends log what must not go on the wire: internal errors, refused tokens. */
  readonly log: Logger;
  /** Calls kept as tasks. */
  readonly tasks: TaskDesk;
  /** The approvals calls wait for, as tasks. */
  readonly approvals: ApprovalDesk;
  private taskSettings: TaskSettings;
  private closing: Promise<void> | undefined;
  /**
   * Whether the start is over. Until then the tree is rebuilt as each source
   * comes up, and what does not fit is said once, by the start's last build.
   */
  private started = false;
  /**
   * The sources that were up when the tree served now was built: their
   * tools are in it. A source that came up since is not counted up by
   * `health` until a rebuild has brought its tools in.
   */
  private builtWith: ReadonlySet<string> = new Set();

  private constructor(
    private config: Config,
    private readonly parts: BrokerParts,
    readonly metrics: BrokerMetrics,
    private skeleton: Skeleton,
    private current: Tree,
    log: Logger,
  ) {
    this.log = log;
    this.taskSettings = taskSettingsOf(config);
    this.tasks = new TaskDesk({
      book: new TaskBook(parts.store, parts.instance),
      bus: parts.store.bus,
      log,
      audit: (entry) =>
        parts.auditSink.write(
          entry,
          this.current.get(entry.path)?.type === "tool"
            ? this.current.tool(entry.path).sourceId
            : "-",
        ),
      call: (path, args, caller) => this.call(path, args, caller),
      settings: () => this.taskSettings,
    });
    this.approvals = new ApprovalDesk(this.tasks, { policyOf: (path) => this.policyDigest(path) });
    this.policy = policyFor(config, parts, log, this.approvals);
    this.registry = new RegistryDesk(parts.toolRegistry, {
      mount: () => this.config.registry?.mount ?? DEFAULT_REGISTRY_MOUNT,
      fits: (tools) => skeletonWithRegistry(this.config, tools),
      admit: (principal, path) => this.admit(principal, path),
      settled: () => this.registryApplies.settled().then(() => this.applying),
    });
    // A registration here or on another instance mounts or unmounts registered tools.
    parts.toolRegistry.onChange(() => this.registryApplies.request());
  }

  /**
   * Opens the state store and the registry in it, starts every source in
   * parallel and builds the first tree.
   */
  static async start(config: Config, options: BrokerOptions): Promise<Broker> {
    const { broker, ready } = await Broker.open(config, options);
    await ready;
    return broker;
  }

  /**
   * Opens the state store and the registry in it and starts every source in
   * parallel, but does not wait for them: the broker it resolves with already
   * serves the tree of the config's nodes, each source's tools joining it as
   * the source comes up. `ready` settles as `start` would: once every source
   * is up and the whole tree is built, or with the error that would have
   * failed the start (a source that cannot start, a broken tool, an abort),
   * everything closed.
   */
  static async open(
    config: Config,
    options: BrokerOptions,
  ): Promise<{ broker: Broker; ready: Promise<void> }> {
    // Checked before anything is opened: a config that cannot work fails at once.
    skeletonWithRegistry(config, []);
    const { signal, log } = options;
    signal?.throwIfAborted();
    // What the parts say before the broker exists has no one to hear it yet.
    let broker: Broker | undefined;
    const metrics = new BrokerMetrics(
      () => broker?.health().sources ?? {},
      () => broker?.health().registry ?? {},
    );
    const parts = await openBrokerParts(config, log, metrics, {
      toolsChanged: () => broker?.rebuilds.request(),
      sourceEvent: (source, event) => broker?.emitSourceEvent(source, event),
      soleClient: options.soleClient,
    });
    // Sources are what a start waits on: an abort stops them at once, the rest is closed after.
    let interrupted: Promise<void> | undefined;
    const interrupt = () => {
      interrupted = parts.sources.close();
    };
    signal?.addEventListener("abort", interrupt, { once: true });
    const failed = async (err: unknown): Promise<never> => {
      await interrupted;
      if (broker) await broker.close();
      else await closeBrokerParts(parts);
      throw signal?.aborted ? (signal.reason as unknown) : err;
    };
    let starting: Promise<void> | undefined;
    try {
      signal?.throwIfAborted();
      const skeleton = skeletonWithRegistry(config, parts.toolRegistry.tools());
      starting = Promise.resolve(options.startAfter).then(() => {
        signal?.throwIfAborted();
        return parts.sources.start(skeleton.mounts, options.ignoreBroken === true);
      });
      // Nothing is up yet: the tree of the config's nodes, and no tools.
      const { tree } = await treeOfSources(config, skeleton, parts.sources, log, parts.pins);
      broker = new Broker(config, parts, metrics, skeleton, tree, log);
    } catch (err) {
      signal?.removeEventListener("abort", interrupt);
      // The sources' start settles once they are closed; its own failure says nothing more.
      starting?.catch(() => undefined);
      return failed(err);
    }
    const started = broker;
    const ready = starting!
      .then(async () => {
        signal?.throwIfAborted();
        await started.settleStart(options.ignoreBroken === true);
      })
      .catch(failed)
      .finally(() => signal?.removeEventListener("abort", interrupt));
    return { broker: started, ready };
  }

  /**
   * The tree once every source has started: built whole and checked, a broken
   * tool failing the start unless `ignoreBroken` leaves it out.
   */
  private async settleStart(ignoreBroken: boolean): Promise<void> {
    // A rebuild waiting for its turn would build what this builds now, up to four
    // times the last rebuild's time later, and announce a change that is none.
    await this.rebuilds.skipWaiting();
    const { tree, problems, warnings, builtWith } = await this.treeNow();
    this.warnAll(warnings, "config does not fit the tools");
    if (problems.length > 0 && !ignoreBroken) {
      throw new ConfigError("tree", [
        ...problems,
        "start with --ignore-broken-tool to leave these out instead",
      ]);
    }
    this.warnAll(problems, "tool left out");
    this.started = true;
    this.swapIn(tree, builtWith);
  }

  tree(): Tree {
    return this.current;
  }

  /** The top-level entries the caller may see (none where it may see no tree). */
  topEntries(principal: Principal): EntrySummary[] {
    return reaches(principal, "tree", "/") ? this.list("/", principal).children : [];
  }

  /**
   * The children of a node that the caller may see: all of them, or as
   * `meta_tree` lists them, the part from `offset`.
   */
  list(path: string, principal: Principal, offset?: number): NodeListing {
    this.visible(path, principal);
    const node = this.current.node(path);
    this.mayReach(principal, "tree", node.path);
    const seen = this.current.children(node).filter((c) => reaches(principal, "tree", c.path));
    const listing =
      offset === undefined
        ? { path: node.path, children: seen.map(summarizeEntry) }
        : pageOf(node.path, seen, offset, TREE_PAGE);
    const notUp = seen.length === 0 ? this.toolsNotKnown(node.path) : undefined;
    return notUp === undefined ? listing : { ...listing, notice: notUp };
  }

  /**
   * For the node a source is mounted at, while the tree has none of its
   * tools because the source has not been up: why, so that an empty listing
   * is not taken for a source without tools.
   */
  private toolsNotKnown(path: string): string | undefined {
    if (!this.parts.sources.has(path) || this.current.hasToolsOf(path)) return undefined;
    const why = this.parts.sources.notUp(path);
    return why && `${why}; its tools are listed once it is up`;
  }

  /**
   * The entry at `path` as the caller may see it; a node's children all of
   * them, or, as `meta_desc` lists them, at most `childrenShown`.
   */
  describe(path: string, principal: Principal, childrenShown?: number): EntryDescription {
    const entry = this.visible(path, principal);
    if (
      entry.type === "tool"
        ? !allows(principal, "describe", entry.path)
        : !reaches(principal, "describe", entry.path)
    ) {
      throw forbidden(principal, "describe", entry.path);
    }
    const statuses = this.parts.sources.statuses();
    const description = describeEntry(this.current, entry, (id) => statuses[id]);
    if (description.type === "tool") {
      const change = this.parts.pins.current().get(entry.path);
      return change ? { ...description, pinning: pinningNote(change) } : description;
    }
    const sandbox = description.source && this.sandboxOf(description.source.name);
    const children = description.children.filter((c) => reaches(principal, "tree", c.path));
    return {
      ...description,
      ...(sandbox && { source: { ...description.source!, sandbox } }),
      ...firstChildren(description.path, children, childrenShown),
    };
  }

  /** What the sandbox of the source mounted at `id` grants, where it runs in one. */
  private sandboxOf(id: string): SandboxDescription | undefined {
    const source = this.skeleton.mounts.find((m) => m.id === id)?.source as
      { sandbox?: SourceSandbox } | undefined;
    const plan = sandboxPlanOf(source?.sandbox);
    return (
      plan && {
        read: plan.read,
        write: plan.write,
        network: plan.network,
        memory_mb: plan.memoryMb,
        pids: plan.pids,
        open_files: plan.openFiles,
        ...(plan.cpuS !== undefined && { cpu_s: plan.cpuS }),
      }
    );
  }

  /**
   * `meta_desc` as asked: the description (a node's children at most
   * `childrenShown`, where given), or declarations of the tools under the path.
   */
  metaDesc(
    request: { path: string; format: "json" | "typescript" },
    principal: Principal,
    childrenShown?: number,
  ): EntryDescription | TypescriptDescription {
    return request.format === "typescript"
      ? this.declarations(request.path, principal)
      : this.describe(request.path, principal, childrenShown);
  }

  /**
   * The tools under a path that the caller may call, as TypeScript
   * declarations of `meta_run`'s `tools` object.
   */
  declarations(path: string, principal: Principal): TypescriptDescription {
    const entry = this.visible(path, principal);
    if (!reaches(principal, "describe", entry.path))
      throw forbidden(principal, "describe", entry.path);
    const tools = this.current
      .tools()
      .filter((leaf) => isWithin(leaf.path, entry.path) && allows(principal, "call", leaf.path));
    return { path: entry.path, format: "typescript", declarations: typescriptDeclarations(tools) };
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
    const query = salientQuery(request.query, MAX_QUERY_CHARS);
    const mayCall = (path: string) => allows(principal, "call", path);
    const hits = await this.parts.toolSearch.search({
      query: query.text,
      limit: request.limit,
      signal,
      accepts: (path) =>
        isWithin(path, under.path) && tree.get(path)?.type === "tool" && mayCall(path),
      // Ranked among the tools the caller may call alone: what others may see changes nothing.
      caller: { key: principal.scopes.join("\n"), may: mayCall },
    });
    const warming = this.parts.toolSearch.warming;
    const notices = [
      query.notice,
      warming &&
        `the tool index is warming up: ${warming.indexed} of ${warming.total} tools are in, and this search saw only those; ask again in a moment`,
      this.notSearched(under.path, principal),
      hits.length === 0 && !warming && this.nothingFound(under, principal),
    ].filter(Boolean);
    return {
      results: hits.map((hit) => foundTool(tree.tool(hit.path), hit, request.includeSchema)),
      ...(notices.length > 0 && { notice: notices.join("; ") }),
    };
  }

  /**
   * The sources under `path` the caller may see whose tools the tree does
   * not have yet (still starting, or failing to start), named: a search
   * cannot find them, and without this a model would take their absence for
   * an answer.
   */
  private notSearched(path: string, principal: Principal): string | undefined {
    const absent = this.skeleton.mounts
      .filter((m) => isWithin(m.id, path) && sees(principal, m.id) && this.toolsNotKnown(m.id))
      .map((m) => m.id);
    if (absent.length === 0) return undefined;
    return `not searched: the tools of ${namedFew(absent)}, not up yet (meta_tree on a node says why)`;
  }

  /**
   * What a search that found nothing says instead: a model given an empty
   * list has nowhere to go, and the tool it needs may be described in words
   * it did not use. So it names where to browse, from what the caller may see.
   */
  private nothingFound(under: TreeEntry, principal: Principal): string {
    const where = under.path === "/" ? "" : ` under ${under.path}`;
    const children = under.type === "node" ? this.list(under.path, principal).children : [];
    const browse =
      children.length === 0
        ? ""
        : `, or browse ${under.path} with meta_tree (it holds ${namedFew(children.map((c) => c.path))})`;
    return `no tool${where} matched a word of the query; try other words for what the tool does (an action and what it acts on)${browse}`;
  }

  /**
   * A call of a node: what it holds, as far as the caller may see, so that
   * a model can call the tool it meant next rather than list the node first.
   */
  private notATool(node: TreeEntry, principal: Principal): BrokerError {
    const children = reaches(principal, "tree", node.path)
      ? this.list(node.path, principal).children
      : [];
    const holds =
      children.length === 0
        ? "; use meta_tree to list what is under it"
        : ` (it holds ${namedFew(children.map((c) => c.path))}); call one of its tools (meta_desc on it says how), or use meta_tree to list what is under it`;
    return new BrokerError("invalid_params", `${node.path} is a node, not a tool${holds}`, {
      path: node.path,
    });
  }

  /**
   * Takes a token of the config's rate limits for a request at `path` that
   * reaches no source (a search, a registry method): every request a caller
   * can make counts, not only calls. `rate_limited` when a bucket is empty.
   */
  admit(principal: Principal, path: string): Promise<void> {
    return this.policy.rateLimits.admit(this.parts.store, principal, path);
  }

  /** Resolves when the search index has the synonyms and embeddings of the current tree. */
  searchSettled(): Promise<void> {
    return this.parts.toolSearch.settled();
  }

  /** The leaves a caller may call: what flat tools/list shows it. */
  callableTools(principal: Principal): ToolEntry[] {
    return this.current.tools().filter((leaf) => allows(principal, "call", leaf.path));
  }

  async call(path: string, args: unknown, caller: CallerContext): Promise<CallOutput> {
    let entry: TreeEntry;
    try {
      entry = this.visible(path, caller.principal);
    } catch (err) {
      if (!(await this.joinedOnStart(path, caller))) throw err;
      entry = this.visible(path, caller.principal);
    }
    if (entry.type === "node") throw this.notATool(entry, caller.principal);
    const leaf = entry;
    if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) {
      throw new BrokerError(
        "invalid_params",
        `args must be a JSON object of named arguments, not ${Array.isArray(args) ? "an array" : JSON.stringify(args)}`,
        { path: leaf.path },
      );
    }
    const result = (await this.policy.invoke({
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
   * Runs a `meta_run` script for the caller, who needs the `run` scope: each
   * call the script makes is the caller's own, through the whole policy.
   */
  async run(
    request: { code: string; timeout_s?: number | undefined; report_calls?: boolean | undefined },
    caller: CallerContext,
  ): Promise<RunAnswer> {
    if (!allows(caller.principal, "run", "/")) throw forbidden(caller.principal, "run", "/");
    await this.admit(caller.principal, "/");
    return runScript(
      {
        broker: this,
        sandbox: this.parts.scripts,
        settings: runSettingsOf(this.config.run),
        audit: this.parts.auditSink.write,
      },
      request,
      caller,
    );
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
    return (await this.policy.invoke(request)) as Outcome<K>;
  }

  /** The state store when other instances share it (it has a bus), for the frontends' sessions. */
  sharedStore(): SharedStore | undefined {
    return isShared(this.parts.store) ? this.parts.store : undefined;
  }

  /**
   * The key 2026-07-28 request states are sealed with: one for every
   * instance sharing the store, so that any opens what another sealed;
   * undefined where this instance is alone (a key of its own then).
   */
  bridgeKey(): Uint8Array | undefined {
    return this.parts.inputBridgeKey;
  }

  /**
   * Whether a source of this name is mounted and `principal` may know of it:
   * `/mcp/<name>` asks on every request, so only that source's scopes are read.
   */
  knowsSource(name: string, principal: Principal): boolean {
    return this.visibleMount(name, principal) !== undefined;
  }

  /** Names of the mounted sources, for `/mcp/<name>`: those `principal` may know of, when given. */
  sourceNames(principal?: Principal): string[] {
    return this.skeleton.mounts
      .filter((m) => principal === undefined || sees(principal, m.id))
      .map((m) => m.name);
  }

  /** Why `name` is no source, naming those `principal` may know of and the one likely meant. */
  noSourceNamed(name: string, principal?: Principal): string {
    const known = this.sourceNames(principal);
    return `no source named "${name}"${nameMeant(name, known)}; the sources are ${known.join(", ") || "(none)"}`;
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
      this.parts.sources.kind(mount.id).errorProfile,
      this.parts.sources.introduced(mount.id),
      this.current,
    );
  }

  /** Every source, up or not. */
  allSources(): SourceView[] {
    return this.skeleton.mounts
      .filter((m) => this.parts.sources.has(m.id))
      .map((m) => this.source(m.name));
  }

  /** Ends what a client session holds at the sources (its subscriptions). */
  endSession(session: string): Promise<void> {
    return this.parts.sources.endSession(session);
  }

  /**
   * Each source's state, and each registered tool's health here; `ok` is
   * whether every source is up with its tools in the tree served (a
   * registered service being down is its own affair, not the broker's).
   */
  health(): {
    ok: boolean;
    sources: Record<string, SourceStatus>;
    registry: Record<string, ToolHealth>;
  } {
    const sources = this.parts.sources.statuses();
    return {
      ok: Object.entries(sources).every(([id, s]) => s.up && this.builtWith.has(id)),
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
    return this.parts.auditSink.listen(listener);
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
        this.log.warn(
          { setting },
          "a change of this setting takes a restart; the running value stays in use",
        );
      }
      this.log.info(counts, "config reloaded");
    });
    this.applying = run.catch(() => undefined);
    await run;
  }

  /** Closes everything it opened; a second close waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.tasks.close();
      this.rebuilds.stop();
      this.registryApplies.stop();
      await closeBrokerParts(this.parts);
    })();
    return this.closing;
  }

  /** The tree for a config and the registered tools: changed sources restarted, others kept. */
  private async apply(
    config: Config,
    newChain: boolean,
  ): Promise<{ kept: number; started: number; stopped: number }> {
    const skeleton = skeletonWithRegistry(config, this.parts.toolRegistry.tools());
    const { toStart, kept, stopped } = await this.parts.sources.retain(skeleton.mounts);
    this.config = config;
    this.skeleton = skeleton;
    this.parts.auditSink.logRecords = config.audit?.log ?? true;
    if (newChain) {
      this.parts.pins.setMode(config.pinning.mode);
      this.taskSettings = taskSettingsOf(config);
      this.policy = policyFor(config, this.parts, this.log, this.approvals);
    }
    await this.parts.sources.start(toStart, true);
    await this.rebuild();
    return { kept, started: toStart.length, stopped };
  }

  /**
   * SHA-256 of what decides a call of the tool at `path`: the tool's
   * definition and settings, its source's config, and the config's tokens,
   * approvals, rate limits and redaction. An approval is bound to it, so a
   * change of any of these needs a new one.
   */
  private policyDigest(path: string): string {
    const leaf = this.current.tool(path);
    const mount = this.skeleton.mounts.find((m) => m.id === leaf.sourceId);
    const { auth, approvals, rate_limits, redact, limits } = this.config;
    return digestOf({
      tool: leaf.tool,
      limits: leaf.limits,
      timeoutMs: leaf.timeoutMs,
      source: mount?.source,
      config: { auth, approvals, rate_limits, redact, limits },
    });
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
    let entry: TreeEntry | undefined;
    try {
      entry = this.current.lookup(path);
    } catch (err) {
      if (!(err instanceof BrokerError) || err.kind !== "not_found") throw err;
      const at = normalizePath(path);
      this.refuseHeld((c) => c.path === at, principal);
    }
    if (entry && sees(principal, entry.path)) return entry;
    throw absent(
      path,
      this.current.near(path, (p) => sees(principal, p)),
    );
  }

  /**
   * Refuses, naming the change, a call of a tool that pinning holds back
   * (its definition changed, or it is new on a pinned source, under
   * `enforce`), where the caller may know of its path; does nothing else.
   */
  refuseHeld(matches: (change: DefinitionChange) => boolean, principal: Principal): void {
    for (const change of this.parts.pins.current().values()) {
      if (!change.held || !matches(change) || !sees(principal, change.path)) continue;
      throw heldBack(change);
    }
  }

  /** The tool definitions that differ from their pins, where `principal` is an admin of their path. */
  definitionChanges(principal: Principal): DefinitionChange[] {
    return [...this.parts.pins.current().values()].filter((c) =>
      allows(principal, "admin", c.path),
    );
  }

  /**
   * Pins the definition offered now at `path`, for an admin of it; resolves
   * once the tree shows the tool as it is now.
   */
  async approveDefinition(path: string, principal: Principal): Promise<PinRecord> {
    const at = normalizePath(path) ?? path;
    if (!allows(principal, "admin", at)) throw forbidden(principal, "admin", at);
    const pin = await this.parts.pins.approve(at, principal.id);
    this.rebuilds.request();
    await this.rebuilds.settled();
    return pin;
  }

  /**
   * For a path the tree does not have: whether it lies under a source the
   * caller may see whose tools the tree has never had (its first start is
   * under way, as in the second after `npm start` begins answering), and
   * that source has since started and its tools joined the tree. The wait is
   * the source's own (see Supervisor.ready): `unavailable` if its start
   * fails, the caller's signal ends it.
   */
  private async joinedOnStart(path: string, caller: CallerContext): Promise<boolean> {
    const at = normalizePath(path);
    if (at === null) return false;
    const mount = this.skeleton.mounts
      .filter((m) => isWithin(at, m.id))
      .reduce<Mount | undefined>((a, m) => (a && a.id.length > m.id.length ? a : m), undefined);
    if (
      !mount ||
      !sees(caller.principal, mount.id) ||
      !this.parts.sources.has(mount.id) ||
      this.builtWith.has(mount.id) ||
      this.current.hasToolsOf(mount.id)
    )
      return false;
    await this.parts.sources.ready(mount.id, caller.signal);
    // Up: its tools join with the next tree built (a paced rebuild, or the start's last build).
    this.rebuilds.request();
    await this.treeWith(mount.id, caller.signal);
    return true;
  }

  /**
   * Resolves once the tree served was built with the source up, or a tree was
   * built while it was not (it went down again); the signal ends the wait.
   */
  private treeWith(sourceId: string, signal: AbortSignal): Promise<void> {
    if (this.builtWith.has(sourceId)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const off = this.onTreeChange(() => {
        if (!this.builtWith.has(sourceId) && this.parts.sources.statuses()[sourceId]?.up) return;
        off();
        signal.removeEventListener("abort", stop);
        resolve();
      });
      const stop = () => {
        off();
        reject(signal.reason);
      };
      signal.addEventListener("abort", stop, { once: true });
    });
  }

  /** The mount of this source name, where `principal` (when given) may know of it. */
  private visibleMount(
    name: string,
    principal?: Principal,
  ): Skeleton["mounts"][number] | undefined {
    const mount = this.skeleton.mounts.find((m) => m.name === name);
    return mount && (principal === undefined || sees(principal, mount.id)) ? mount : undefined;
  }

  /** A mount by its source name; `not_found` names the sources the caller may know of. */
  private mountNamed(name: string, principal?: Principal): Skeleton["mounts"][number] {
    const mount = this.visibleMount(name, principal);
    if (!mount || !this.parts.sources.has(mount.id)) {
      throw new BrokerError("not_found", this.noSourceNamed(name, principal), { source: name });
    }
    return mount;
  }

  private emitSourceEvent(source: string, event: SourceEvent): void {
    for (const listener of this.sourceListeners) listener(source, event);
  }

  /** A new tree in force, searched and announced. */
  private swapIn(tree: Tree, builtWith: ReadonlySet<string>): void {
    this.current = tree;
    this.builtWith = builtWith;
    this.parts.toolSearch.update(searchableTools(tree));
    for (const listener of this.treeListeners) listener();
  }

  /** The tree of the config and the sources' tools as they are now, its problems, and the sources up. */
  private async treeNow(): Promise<
    Awaited<ReturnType<typeof treeOfSources>> & { builtWith: ReadonlySet<string> }
  > {
    const statuses = Object.entries(this.parts.sources.statuses());
    const builtWith = new Set(statuses.filter(([, status]) => status.up).map(([id]) => id));
    const built = await treeOfSources(
      this.config,
      this.skeleton,
      this.parts.sources,
      this.log,
      this.parts.pins,
    );
    return { ...built, builtWith };
  }

  /** A new tree from the sources' tools now, swapped in at once. */
  private async rebuild(): Promise<void> {
    const { tree, problems, warnings, builtWith } = await this.treeNow();
    if (this.started) {
      this.warnAll(warnings, "config does not fit the tools");
      this.warnAll(problems, "tool left out");
    }
    this.swapIn(tree, builtWith);
  }

  private warnAll(problems: readonly string[], message: string): void {
    for (const problem of problems) this.log.warn({ problem }, message);
  }
}

/**
 * After a rebuild of the tree that took T, the next waits at least this many
 * times T: rebuilds take at most a fifth of the event loop, however often a
 * source says its tools changed.
 */
const REBUILD_SPACING = 4;

function taskSettingsOf(config: Config): TaskSettings {
  return {
    ttlMs: (config.tasks?.ttl_s ?? 86_400) * 1000,
    answerWithinMs: config.tasks?.answer_within_ms ?? 1000,
    maxResultBytes: config.tasks?.max_result_bytes ?? 1024 * 1024,
    maxRunningPerCaller: config.tasks?.max_running_per_caller ?? 100,
    rules: new ApprovalRules(config.approvals),
  };
}

/** The settings only a restart applies, by name. */
function restartOnly(config: Config): Record<string, unknown> {
  return {
    state: config.state ?? "memory",
    "audit.file": config.audit?.file,
    "registry.allowed_hosts": config.registry?.allowed_hosts,
    "registry.health_check_interval_s": config.registry?.health_check_interval_s,
    "registry.max_response_bytes": config.registry?.max_response_bytes,
    "registry.predefined": config.registry?.predefined,
    toolsets: config.toolsets,
    tool_search: config.tool_search,
    "run.workers": config.run?.workers,
    "run.max_waiting": config.run?.max_waiting,
    "run.max_waiting_per_caller": config.run?.max_waiting_per_caller,
  };
}
