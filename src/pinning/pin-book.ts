import type { Tool } from "@modelcontextprotocol/server";
import type { PINNING_MODES } from "../config/schema.js";
import { BrokerError } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import { isJsonObject, parseJson } from "../contract/json-text.js";
import type { StateStore } from "../state/store.js";
import { leafPathOf } from "../tree/build-tree.js";
import { ToolFilter } from "../tree/tool-filter.js";
import type { Mount } from "../tree/skeleton.js";
import {
  changedFields,
  definitionDiff,
  definitionOf,
  fingerprintOf,
  type ToolDefinition,
} from "./definition.js";
import type { Finding } from "./suspicious-text.js";

export type PinningMode = (typeof PINNING_MODES)[number];

/** A tool's definition as it was trusted: first seen, or approved by an admin since. */
export interface PinRecord {
  readonly sha256: string;
  readonly definition: ToolDefinition;
  readonly pinned_at: string;
  readonly approved_by?: string;
  /** An admin saw this definition's findings and let it through. */
  readonly findings_accepted?: true;
}

/**
 * A tool whose definition is not the one trusted: `changed` since it was
 * pinned, `new` on a source whose tools were pinned before, or `suspicious`
 * for what its text holds. Under `enforce` it is `held`: out of the tree
 * until an admin approves what is offered now.
 */
export interface DefinitionChange {
  readonly path: string;
  readonly source: string;
  readonly tool: string;
  readonly kind: "changed" | "new" | "suspicious";
  readonly held: boolean;
  readonly pinned?: Omit<PinRecord, "definition">;
  readonly offered_sha256: string;
  /** The fields that differ from the pinned definition. */
  readonly fields: readonly string[];
  /** A unified diff, pinned against offered. */
  readonly diff: string;
  readonly findings: readonly Finding[];
}

/** Pins are kept as long as a store keeps anything: ten years. */
const PIN_TTL_MS = 10 * 365 * 24 * 3600 * 1000;
const CHANGED_CHANNEL = "pins-changed";
const MAX_TOLD = 10_000;

/**
 * Tool definitions pinned against silent change. The first definition seen
 * of each tool is pinned (its SHA-256 and the definition itself, for diffs)
 * in a store that outlives the process; every later list of the source is
 * compared with the pins. What differs, what is new on a source pinned
 * before, and what a text check finds suspicious is a change: logged once
 * and shown under `warn`, held out of the tree under `enforce` until an
 * admin approves it.
 */
export class PinBook {
  /** Pins read or written here, by key: a list that matches them costs no store round trip. */
  private readonly known = new Map<string, PinRecord>();
  private readonly pinnedSources = new Set<string>();
  private readonly told = new Set<string>();
  private changes = new Map<string, DefinitionChange>();
  /** The definitions offered at the paths of the last review's changes, for approval. */
  private offered = new Map<string, ToolDefinition>();
  /** The findings of each definition offered at the last review, by fingerprint. */
  private findings = new Map<string, Finding[]>();
  private readonly unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: StateStore,
    private mode: PinningMode,
    private readonly inspect: (definition: ToolDefinition) => Finding[],
    private readonly log: Logger,
    /** Told when another instance approved a definition: the tree is due a rebuild. */
    approvedElsewhere: () => void,
  ) {
    this.unsubscribe = store.bus?.subscribe(CHANGED_CHANNEL, () => {
      this.known.clear();
      approvedElsewhere();
    });
  }

  setMode(mode: PinningMode): void {
    this.mode = mode;
  }

  /** The changes the last review found, by path. */
  current(): ReadonlyMap<string, DefinitionChange> {
    return this.changes;
  }

  /**
   * Compares each source's listed tools with their pins, pinning what is
   * seen first: the lists without the tools held back, and the changes.
   */
  async review(
    mounts: readonly Mount[],
    lists: ReadonlyMap<string, readonly Tool[]>,
  ): Promise<Map<string, readonly Tool[]>> {
    const kept = new Map(lists);
    if (this.mode === "off") {
      this.changes = new Map();
      return kept;
    }
    const changes = new Map<string, DefinitionChange>();
    const offered = new Map<string, ToolDefinition>();
    const findings = new Map<string, Finding[]>();
    for (const mount of mounts) {
      // A tool the config filters out is never mounted: what it says is nobody's concern.
      const filter = new ToolFilter(mount.source.tool_filter);
      // A name listed twice is mounted once, the first (the tree refuses the other): the
      // other is not this tool's definition changed.
      const names = new Set<string>();
      const tools = (lists.get(mount.id) ?? []).filter(
        (t) => filter.allows(t.name) && !names.has(t.name) && names.add(t.name),
      );
      if (tools.length === 0) continue;
      const sourceKey = `pin-source:${JSON.stringify(mount.id)}`;
      const pinnedBefore =
        this.pinnedSources.has(mount.id) || (await this.store.get(sourceKey)) !== undefined;
      const held = new Set<string>();
      // All at once: a shared store's round trips overlap (ioredis pipelines them).
      const checked = await Promise.all(
        tools.map((tool) => this.check(mount, tool, pinnedBefore, findings)),
      );
      for (const found of checked) {
        if (!found) continue;
        changes.set(found.change.path, found.change);
        offered.set(found.change.path, found.definition);
        if (found.change.held) held.add(found.change.tool);
      }
      if (!pinnedBefore) {
        await this.store.set(sourceKey, new Date().toISOString(), PIN_TTL_MS);
        this.pinnedSources.add(mount.id);
      }
      if (held.size > 0)
        kept.set(
          mount.id,
          (lists.get(mount.id) ?? []).filter((t) => !held.has(t.name)),
        );
    }
    this.changes = changes;
    this.offered = offered;
    this.findings = findings;
    return kept;
  }

  /** Pins what is offered now at `path`, as approved by `by`; the tree is due a rebuild. */
  async approve(path: string, by: string): Promise<PinRecord> {
    const change = this.changes.get(path);
    if (!change) {
      throw new BrokerError(
        "not_found",
        `no tool definition at ${path} waits for approval; GET /pins lists those that do`,
        { path },
      );
    }
    const offered = this.offered.get(change.path);
    if (!offered) throw new BrokerError("not_found", `the tool at ${path} is no longer offered`);
    const pin: PinRecord = {
      sha256: change.offered_sha256,
      definition: offered,
      pinned_at: new Date().toISOString(),
      approved_by: by,
      ...(change.findings.length > 0 && { findings_accepted: true }),
    };
    const key = pinKey(change.source, change.tool);
    await this.store.set(key, JSON.stringify(pin), PIN_TTL_MS);
    this.known.set(key, pin);
    this.log.info(
      { path, source: change.source, sha256: pin.sha256, approved_by: by },
      "tool definition approved",
    );
    await this.store.bus?.publish(CHANGED_CHANNEL, key);
    return pin;
  }

  close(): void {
    this.unsubscribe?.();
  }

  private async check(
    mount: Mount,
    tool: Tool,
    pinnedBefore: boolean,
    findingsNow: Map<string, Finding[]>,
  ): Promise<{ change: DefinitionChange; definition: ToolDefinition } | undefined> {
    const definition = definitionOf(tool);
    const sha256 = fingerprintOf(definition);
    const key = pinKey(mount.id, tool.name);
    let pin = this.known.get(key);
    if (pin?.sha256 !== sha256) {
      pin = parsePin(await this.store.get(key));
      if (pin === undefined && !pinnedBefore) {
        pin = { sha256, definition, pinned_at: new Date().toISOString() };
        // Of instances pinning a first sight at once, the first wins; the others read its pin.
        if (!(await this.store.compareAndSet(key, undefined, JSON.stringify(pin), PIN_TTL_MS)))
          pin = parsePin(await this.store.get(key));
      }
      if (pin) this.known.set(key, pin);
    }
    // A definition's text is read once while it is offered, not at every rebuild.
    const findings = this.findings.get(sha256) ?? this.inspect(definition);
    findingsNow.set(sha256, findings);
    const kind =
      pin === undefined
        ? "new"
        : pin.sha256 !== sha256
          ? "changed"
          : findings.length > 0 && pin.findings_accepted !== true
            ? "suspicious"
            : undefined;
    if (kind === undefined) return undefined;
    const { path } = leafPathOf(mount, tool.name);
    const { definition: before, ...pinned } = pin ?? {};
    const change: DefinitionChange = {
      path,
      source: mount.id,
      tool: tool.name,
      kind,
      held: this.mode === "enforce",
      ...(pin && { pinned: pinned as Omit<PinRecord, "definition"> }),
      offered_sha256: sha256,
      fields: before ? changedFields(before, definition) : [],
      diff: kind === "suspicious" ? "" : definitionDiff(before, definition, path),
      findings,
    };
    this.tell(change);
    return { change, definition };
  }

  /** Logs a change once per definition offered. */
  private tell(change: DefinitionChange): void {
    const said = `${change.path}\n${change.offered_sha256}\n${change.kind}`;
    if (this.told.has(said)) return;
    // A backend that changes its tools without end does not grow this without end.
    if (this.told.size >= MAX_TOLD) this.told.clear();
    this.told.add(said);
    this.log.warn(
      {
        source: change.source,
        tool: change.tool,
        path: change.path,
        kind: change.kind,
        fields: change.fields,
        findings: change.findings.map((f) => f.rule),
        held: change.held,
      },
      change.kind === "changed"
        ? `tool definition changed since it was pinned${change.held ? "; held until an admin approves it" : ""}`
        : change.kind === "new"
          ? `new tool on a pinned source${change.held ? "; held until an admin approves it" : ""}`
          : `tool definition holds suspicious text${change.held ? "; held until an admin approves it" : ""}`,
    );
  }
}

function pinKey(source: string, tool: string): string {
  return `pin:${JSON.stringify([source, tool])}`;
}

function parsePin(raw: string | undefined): PinRecord | undefined {
  const value = raw === undefined ? undefined : parseJson(raw);
  return isJsonObject(value) && typeof value.sha256 === "string"
    ? (value as unknown as PinRecord)
    : undefined;
}
