import { BrokerError } from "../contract/errors.js";
import { KEY_MEANT } from "../contract/key-meant.js";
import type { Logger } from "../contract/log.js";
import { jsonPath } from "../config/errors.js";
import type { StateStore } from "../state/store.js";
import { Catalog, type RegisteredTool, type Registrant } from "./catalog.js";
import { HostAllowlist } from "../net/host-allowlist.js";
import { HttpToolService } from "./http-tool-service.js";
import { ServiceRuntime } from "./service-runtime.js";
import type { InProcessService } from "./tool-service.js";
import {
  definitionProblems,
  ToolDefinitionSchema,
  type ToolDefinition,
} from "./tool-definition.js";

export interface RegistryOptions {
  readonly store: StateStore;
  readonly log: Logger;
  /** Seconds between health checks of each service. */
  readonly healthCheckIntervalS: number;
  readonly allowedHosts: readonly string[];
  readonly maxResponseBytes: number;
  /** How often the copy of the catalog is compared with the store, for other instances' changes. */
  readonly syncIntervalMs: number;
  /** Tools built into the broker, for the `builtin` source kind. */
  readonly builtins: readonly InProcessService[];
  /** Whether the built-in tools are also registered here (the tool registry protocol's predefined tools). */
  readonly predefined: boolean;
}

/** The answer to `tools/register`. */
export interface RegisterAnswer {
  readonly tool_id: string;
  readonly status: "registered";
  readonly health_check_interval: number;
}

/**
 * The tool registry: tool services that register themselves at
 * run time. The catalog of registrations lives in the state store (so it
 * survives restarts and is shared by instances on one Redis); each instance
 * runs its own breaker and health checks for every registered service.
 */
export class ToolRegistry {
  private readonly catalog: Catalog;
  private readonly runtimes = new Map<string, ServiceRuntime>();
  /** The predefined tools, registered at start-up in this instance only: they run here. */
  private readonly predefined = new Map<string, ServiceRuntime>();
  private readonly listeners = new Set<() => void>();
  private readonly allow: HostAllowlist;
  private syncTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly options: RegistryOptions) {
    this.allow = new HostAllowlist(options.allowedHosts);
    this.catalog = new Catalog(options.store, options.log, () => this.reconcile());
    if (!options.predefined) return;
    const registeredAt = new Date().toISOString();
    for (const service of options.builtins) {
      const { name } = service.definition;
      const tool = {
        toolId: `${name}_v1`,
        version: 1,
        definition: service.definition,
        registeredAt,
      };
      this.predefined.set(
        name,
        new ServiceRuntime(tool, service, options.healthCheckIntervalS * 1000, options.log),
      );
    }
  }

  /** Reads the registrations from the store and watches it for other instances' changes. */
  static async open(options: RegistryOptions): Promise<ToolRegistry> {
    const registry = new ToolRegistry(options);
    // An unreadable catalog is logged by the catalog and kept as it is; the broker serves the rest.
    await registry.catalog.sync().catch((err: Error) => {
      if (!(err instanceof BrokerError) || err.kind !== "internal") throw err;
    });
    registry.syncTimer = setInterval(() => {
      registry.catalog.sync().catch((err: Error) => {
        // An unreadable catalog has been reported by the catalog itself.
        if (err instanceof BrokerError && err.kind === "internal") return;
        options.log.warn({ err: err.message }, "reading the registry from the store failed");
      });
    }, options.syncIntervalMs);
    registry.syncTimer.unref();
    return registry;
  }

  /** A `tool` object as a definition: its shape, its schemas compiled, its URLs allowed. */
  async validate(input: unknown): Promise<ToolDefinition> {
    const parsed = ToolDefinitionSchema.safeParse(input, KEY_MEANT);
    if (!parsed.success) {
      throw invalid(
        parsed.error.issues.map((i) => `${jsonPath(["tool", ...i.path])}: ${i.message}`),
      );
    }
    const definition = parsed.data;
    if (this.predefined.has(definition.name)) {
      throw invalid([
        `$.tool.name: "${definition.name}" is a predefined tool of the broker; choose another name`,
      ]);
    }
    // A name only its case tells from another's reads as that one to people and models.
    const lower = definition.name.toLowerCase();
    const lookalike = [
      ...this.predefined.keys(),
      ...this.catalog.all().map((t) => t.definition.name),
    ].find((name) => name !== definition.name && name.toLowerCase() === lower);
    if (lookalike !== undefined) {
      throw invalid([
        `$.tool.name: "${definition.name}" differs only in case from "${lookalike}"; choose another name`,
      ]);
    }
    const problems = definitionProblems(definition);
    for (const field of ["endpoint", "health_check_url"] as const) {
      const url = definition[field];
      const problem = url === undefined ? undefined : await this.allow.problemWith(new URL(url));
      if (problem) problems.push(`$.tool.${field}: ${problem}`);
    }
    if (problems.length > 0) throw invalid(problems);
    return definition;
  }

  /**
   * Stores a validated definition: the same again is unchanged, a new one the
   * next version; a name another registrant holds is `forbidden` unless `by`
   * is an admin.
   */
  async register(definition: ToolDefinition, by: Registrant): Promise<RegisterAnswer> {
    const { outcome, tool } = await this.catalog.register(definition, new Date(), by);
    this.options.log.info(
      { tool: tool.definition.name, tool_id: tool.toolId, outcome },
      outcome === "unchanged" ? "tool registered again, unchanged" : "tool registered",
    );
    return {
      tool_id: tool.toolId,
      status: "registered",
      health_check_interval: this.options.healthCheckIntervalS,
    };
  }

  /** Removes a registration; `not_found` when there is none by that name, `forbidden` when it is another's. */
  async unregister(name: string, by: Registrant): Promise<RegisteredTool> {
    const removed = await this.catalog.unregister(name, by);
    if (!removed) throw this.notFound(name);
    this.options.log.info({ tool: name, tool_id: removed.toolId }, "tool unregistered");
    return removed;
  }

  /** The tools at work here, by name: the predefined ones and the registered ones. */
  runtimesByName(): ServiceRuntime[] {
    return [...this.predefined.values(), ...this.runtimes.values()].sort((a, b) =>
      a.name.localeCompare(b.name),
    );
  }

  /** A tool built into the broker, registered here or not. */
  builtin(name: string): InProcessService | undefined {
    return this.options.builtins.find((b) => b.definition.name === name);
  }

  /** The tool at work here, reading the store once more when this instance does not know it. */
  async find(name: string): Promise<ServiceRuntime> {
    let runtime = this.runtime(name);
    if (!runtime && (await this.catalog.sync())) runtime = this.runtime(name);
    if (!runtime) throw this.notFound(name);
    return runtime;
  }

  /** A tool known here, without asking the store. */
  runtime(name: string): ServiceRuntime | undefined {
    return this.predefined.get(name) ?? this.runtimes.get(name);
  }

  /** Every tool the registry serves: the predefined ones, then the registered ones. */
  tools(): RegisteredTool[] {
    return [...[...this.predefined.values()].map((r) => r.tool), ...this.catalog.all()];
  }

  /** Called whenever the set of registered tools or a definition changes. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    clearInterval(this.syncTimer);
    for (const runtime of [...this.runtimes.values(), ...this.predefined.values()]) runtime.close();
    this.runtimes.clear();
    await Promise.all(this.options.builtins.map((b) => b.close?.()));
  }

  /** Keeps one runtime per registered tool, replaced when its definition changes. */
  private reconcile(): void {
    const wanted = new Map(this.catalog.all().map((t) => [t.definition.name, t]));
    for (const [name, runtime] of this.runtimes) {
      if (wanted.get(name)?.toolId === runtime.tool.toolId) continue;
      runtime.close();
      this.runtimes.delete(name);
    }
    for (const [name, tool] of wanted) {
      if (this.runtimes.has(name)) continue;
      const service = new HttpToolService(tool.definition, {
        allow: this.allow,
        maxResponseBytes: this.options.maxResponseBytes,
      });
      this.runtimes.set(
        name,
        new ServiceRuntime(
          tool,
          service,
          this.options.healthCheckIntervalS * 1000,
          this.options.log,
        ),
      );
    }
    for (const listener of this.listeners) listener();
  }

  /** Names no others: which the caller may know of is the desk's to say (broker/registry-desk.ts). */
  private notFound(name: string): BrokerError {
    return new BrokerError("not_found", `no tool named "${name}" is registered`, { tool: name });
  }
}

function invalid(problems: string[]): BrokerError {
  return new BrokerError("invalid_params", `invalid tool definition: ${problems.join("; ")}`, {
    problems,
  });
}
