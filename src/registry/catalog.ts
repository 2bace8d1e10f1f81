import { z } from "zod";
import { BrokerError } from "../contract/errors.js";
import { digestOf } from "../contract/digest.js";
import type { Logger } from "../contract/log.js";
import type { StateStore } from "../state/store.js";
import {
  ToolDefinitionSchema,
  type ServiceDefinition,
  type ToolDefinition,
} from "./tool-definition.js";

/** A tool the registry serves; from the catalog, its definition has an `endpoint`. */
export interface RegisteredTool<D extends ServiceDefinition = ServiceDefinition> {
  /** `<name>_v<version>`: a new id for each new definition, never reused for another one. */
  readonly toolId: string;
  readonly version: number;
  readonly definition: D;
  readonly registeredAt: string;
  /** The principal that registered it: only it (or an admin) may change or remove it. */
  readonly owner?: string | undefined;
}

const StoredTool = z.object({
  tool_id: z.string(),
  version: z.int().positive(),
  digest: z.string(),
  definition: ToolDefinitionSchema,
  registered_at: z.string(),
  /** Absent on registrations stored before names had owners: the next registrant takes it. */
  owner: z.string().optional(),
});
const StoredCatalog = z.object({
  tools: z.record(z.string(), StoredTool),
  /** The last version given to each name, kept after unregistering so an id is never reused. */
  versions: z.record(z.string(), z.int().positive()),
});
type Stored = z.infer<typeof StoredCatalog>;

const KEY = "registry:catalog";
/** The store's contract takes a TTL; the catalog is meant to last. */
const FOREVER_MS = 100 * 365 * 24 * 3600 * 1000;
const MAX_CAS_ATTEMPTS = 50;

/** A registration as the store keeps it: a service reached over HTTP. */
export type StoredRegistration = RegisteredTool<ToolDefinition>;

export interface Registration {
  readonly outcome: "unchanged" | "registered";
  readonly tool: StoredRegistration;
}

/** Who asks for a change of a name, and whether they may change one that is another's. */
export interface Registrant {
  readonly id: string;
  /** An admin of the name: may register over, or remove, another's tool. */
  readonly admin: boolean;
}

/**
 * The registered tools, kept as one JSON document in the state store and
 * changed by compare-and-set, so several broker instances on one Redis (or
 * one SQLite file) never lose each other's registrations. Each instance keeps
 * a copy, refreshed by `sync()`: on a timer, and whenever a name is missing.
 */
export class Catalog {
  private raw: string | undefined;
  private tools = new Map<string, StoredRegistration>();
  /** The unreadable content last reported. */
  private unreadable: string | undefined;

  constructor(
    private readonly store: StateStore,
    private readonly log: Logger,
    private readonly onChange: () => void,
  ) {}

  all(): StoredRegistration[] {
    return [...this.tools.values()];
  }

  get(name: string): StoredRegistration | undefined {
    return this.tools.get(name);
  }

  /** Reads the store; true (and `onChange`) when the registered tools differ from the copy. */
  async sync(): Promise<boolean> {
    const raw = await this.store.get(KEY);
    if (raw === this.raw) return false;
    this.adopt(raw, this.parse(raw));
    return true;
  }

  /**
   * Same name and definition: unchanged. A new definition: the next version.
   * A name another registrant holds is `forbidden`, unless `by` is an admin.
   */
  async register(definition: ToolDefinition, now: Date, by: Registrant): Promise<Registration> {
    const fingerprint = digestOf(definition);
    let registration: Registration | undefined;
    await this.update((stored) => {
      const current = stored.tools[definition.name];
      if (current) mayChange(current, definition.name, by);
      if (current?.digest === fingerprint) {
        const owned = { ...current, owner: current.owner ?? by.id };
        registration = { outcome: "unchanged", tool: toRegistered(owned) };
        // One stored before names had owners becomes this registrant's, unchanged otherwise.
        if (current.owner !== undefined) return undefined;
        return {
          tools: { ...stored.tools, [definition.name]: owned },
          versions: stored.versions,
        };
      }
      const version = (stored.versions[definition.name] ?? 0) + 1;
      const entry = {
        tool_id: `${definition.name}_v${version}`,
        version,
        digest: fingerprint,
        definition,
        registered_at: now.toISOString(),
        // An admin registering over another's tool leaves it its owner's.
        owner: current?.owner ?? by.id,
      };
      registration = { outcome: "registered", tool: toRegistered(entry) };
      return {
        tools: { ...stored.tools, [definition.name]: entry },
        versions: { ...stored.versions, [definition.name]: version },
      };
    });
    return registration!;
  }

  /** The tool that was removed, or undefined when none had that name; `forbidden` when it is another's. */
  async unregister(name: string, by: Registrant): Promise<StoredRegistration | undefined> {
    let removed: StoredRegistration | undefined;
    await this.update((stored) => {
      const current = stored.tools[name];
      if (!current) return undefined;
      mayChange(current, name, by);
      removed = toRegistered(current);
      const { [name]: _gone, ...tools } = stored.tools;
      return { tools, versions: stored.versions };
    });
    return removed;
  }

  /** Applies `change` to the stored catalog until no other writer came between; undefined: no write. */
  private async update(change: (stored: Stored) => Stored | undefined): Promise<void> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const raw = await this.store.get(KEY);
      const stored = this.parse(raw);
      const next = change(stored);
      if (next === undefined) {
        if (raw !== this.raw) this.adopt(raw, stored);
        return;
      }
      const text = JSON.stringify(next);
      if (await this.store.compareAndSet(KEY, raw, text, FOREVER_MS)) {
        this.adopt(text, next);
        return;
      }
    }
    throw new BrokerError(
      "unavailable",
      "the registry is being changed by other instances too often to write; try again",
    );
  }

  private parse(raw: string | undefined): Stored {
    if (raw === undefined) return { tools: {}, versions: {} };
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      json = undefined;
    }
    const parsed = StoredCatalog.safeParse(json);
    if (parsed.success) return parsed.data;
    // Writing over it would lose every registration it holds: refuse, and say where to look
    // (once per content, not on every read).
    if (raw !== this.unreadable) {
      this.unreadable = raw;
      this.log.error(
        { key: KEY, problem: parsed.error.message },
        "the registry in the state store is unreadable; registrations are refused until it is repaired or deleted",
      );
    }
    throw new BrokerError(
      "internal",
      `the registry in the state store (key ${KEY}) is unreadable; see the broker log`,
    );
  }

  private adopt(raw: string | undefined, stored: Stored): void {
    this.raw = raw;
    this.tools = new Map(Object.entries(stored.tools).map(([n, t]) => [n, toRegistered(t)]));
    this.onChange();
  }
}

function toRegistered(entry: z.infer<typeof StoredTool>): StoredRegistration {
  return {
    toolId: entry.tool_id,
    version: entry.version,
    definition: entry.definition,
    registeredAt: entry.registered_at,
    owner: entry.owner,
  };
}

/**
 * A name belongs to the principal that registered it: another's registration
 * over it would send its owner's next calls, arguments and all, wherever the
 * newcomer's endpoint is.
 */
function mayChange(current: z.infer<typeof StoredTool>, name: string, by: Registrant): void {
  if (current.owner === undefined || current.owner === by.id || by.admin) return;
  throw new BrokerError(
    "forbidden",
    `tool "${name}" is registered by another token; only it, or an admin of the registry, may change or remove it`,
    { tool: name },
  );
}
