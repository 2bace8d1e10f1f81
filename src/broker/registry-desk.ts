import { allows, reaches, sees } from "../auth/scopes.js";
import { ConfigError } from "../config/errors.js";
import { BrokerError } from "../contract/errors.js";
import { nameMeant } from "../contract/did-you-mean.js";
import type { Principal } from "../contract/router.js";
import type { RegisteredTool } from "../registry/catalog.js";
import type { ServiceRuntime, ToolHealth } from "../registry/service-runtime.js";
import type { RegisterAnswer, ToolRegistry } from "../registry/tool-registry.js";
import type { ToolDefinition } from "../registry/tool-definition.js";
import { joinPath } from "../tree/path.js";
import { forbidden } from "./forbidden.js";

/** What the desk needs of the broker around it. */
export interface RegistryHost {
  /** The registry's node in the tree. */
  mount(): string;
  /** Throws when the tree could not take these registered tools (a name clash). */
  fits(tools: readonly RegisteredTool[]): void;
  /** Resolves once the tree shows the registry's last change. */
  settled(): Promise<void>;
  /** Takes a token of the rate limits at `path` for the caller: every method counts. */
  admit(principal: Principal, path: string): Promise<void>;
}

/** A registered tool as `tools/list` shows it. */
export interface ListedTool {
  readonly tool_id: string;
  readonly name: string;
  readonly description: string;
  readonly category: string;
  readonly version: string | null;
  readonly path: string;
  readonly registered_at: string;
  readonly functions: { name: string; description: string }[];
  readonly status: ToolHealth["status"];
  readonly health: {
    breaker: ToolHealth["breaker"];
    healthy: boolean | null;
    last_check_at: string | null;
    response_time_ms: number | null;
    last_error: string | null;
  };
}

/** The answer to `health/check`, with the tool's id and breaker beside it. */
export interface HealthAnswer {
  readonly status: "healthy" | "unhealthy" | "maintenance";
  readonly response_time_ms: number | null;
  readonly version: string | null;
  readonly capabilities: string[];
  readonly last_error: string | null;
  readonly tool_id: string;
  readonly breaker: ToolHealth["breaker"];
}

/**
 * The registry as the frontends reach it, under the broker's scopes:
 * `register:` on `<mount>/<tool>` to register and unregister, `describe:`
 * to list and check. Every change is in the tree before its answer goes out.
 */
export class RegistryDesk {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly host: RegistryHost,
  ) {}

  async register(input: unknown, principal: Principal): Promise<RegisterAnswer> {
    const mount = this.host.mount();
    if (!reaches(principal, "register", mount)) throw forbidden(principal, "register", mount);
    const definition = await this.registry.validate(input);
    const path = joinPath(mount, definition.name);
    if (!allows(principal, "register", path)) throw forbidden(principal, "register", path);
    await this.host.admit(principal, path);
    this.mayMount(definition);
    const answer = await this.registry.register(definition, {
      id: principal.id,
      admin: allows(principal, "admin", path),
    });
    await this.host.settled();
    return answer;
  }

  async unregister(
    name: string,
    principal: Principal,
  ): Promise<{ tool_id: string; status: "unregistered" }> {
    const path = joinPath(this.host.mount(), name);
    if (!allows(principal, "register", path)) throw forbidden(principal, "register", path);
    await this.host.admit(principal, path);
    const removed = await this.registry
      .unregister(name, { id: principal.id, admin: allows(principal, "admin", path) })
      .catch((err: unknown) => {
        throw isNotFound(err) ? this.notFound(name, principal) : err;
      });
    await this.host.settled();
    return { tool_id: removed.toolId, status: "unregistered" };
  }

  /** The registered tools the caller may describe, with their health here. */
  async list(principal: Principal): Promise<ListedTool[]> {
    await this.host.admit(principal, this.host.mount());
    return this.registry
      .runtimesByName()
      .map((runtime) => ({ runtime, path: joinPath(this.host.mount(), runtime.name) }))
      .filter(({ path }) => reaches(principal, "describe", path))
      .map(({ runtime, path }) => {
        const { definition, toolId, registeredAt } = runtime.tool;
        const health = runtime.health();
        return {
          tool_id: toolId,
          name: definition.name,
          description: definition.description,
          category: definition.category,
          version: definition.version ?? null,
          path,
          registered_at: registeredAt,
          functions: definition.functions.map((f) => ({
            name: f.name,
            description: f.description,
          })),
          status: health.status,
          health: {
            breaker: health.breaker,
            healthy: health.healthy ?? null,
            last_check_at: health.lastCheckAt ?? null,
            response_time_ms: health.responseTimeMs ?? null,
            last_error: health.lastError ?? null,
          },
        };
      });
  }

  /** Checks a service now (unless its breaker is open) and says how it is. */
  async check(name: string, principal: Principal): Promise<HealthAnswer> {
    const path = joinPath(this.host.mount(), name);
    const runtime = await this.find(name, principal);
    if (!reaches(principal, "describe", path)) throw forbidden(principal, "describe", path);
    await this.host.admit(principal, path);
    const found = await runtime.check();
    return {
      status:
        found.status === "MAINTENANCE"
          ? "maintenance"
          : found.status === "AVAILABLE" && found.healthy !== false
            ? "healthy"
            : "unhealthy",
      response_time_ms: found.responseTimeMs ?? null,
      version: found.version ?? runtime.tool.definition.version ?? null,
      capabilities: found.capabilities,
      last_error: found.lastError ?? null,
      tool_id: runtime.tool.toolId,
      breaker: found.breaker,
    };
  }

  /**
   * The tree path of a registered tool's function: `not_found` naming the
   * tool (when none is registered by that name) or the function (with
   * `details.function`), so the registry's -32002 and -32003 can be told apart.
   */
  async functionPath(tool: string, functionName: string, principal: Principal): Promise<string> {
    (await this.find(tool, principal)).function(functionName);
    await this.host.settled();
    return joinPath(joinPath(this.host.mount(), tool), functionName);
  }

  /** Each registered tool's health here, for `/healthz` and `/metrics`. */
  health(): Record<string, ToolHealth> {
    return Object.fromEntries(this.registry.runtimesByName().map((r) => [r.name, r.health()]));
  }

  /** A registered tool the caller may know of; one it may not is not found, as one not there. */
  private async find(name: string, principal: Principal): Promise<ServiceRuntime> {
    if (!sees(principal, joinPath(this.host.mount(), name))) throw this.notFound(name, principal);
    return this.registry.find(name).catch((err: unknown) => {
      throw isNotFound(err) ? this.notFound(name, principal) : err;
    });
  }

  /** `not_found` for a tool, naming the registered tools the caller may know of. */
  private notFound(name: string, principal: Principal): BrokerError {
    const known = this.registry
      .runtimesByName()
      .map((r) => r.name)
      .filter((n) => sees(principal, joinPath(this.host.mount(), n)));
    return new BrokerError(
      "not_found",
      `no tool named "${name}" is registered${nameMeant(name, known)}; the registered tools are ${known.join(", ") || "(none)"}`,
      { tool: name },
    );
  }

  private mayMount(definition: ToolDefinition): void {
    const others = this.registry.tools().filter((t) => t.definition.name !== definition.name);
    const candidate: RegisteredTool = {
      toolId: `${definition.name}_v0`,
      version: 0,
      definition,
      registeredAt: new Date().toISOString(),
    };
    try {
      this.host.fits([...others, candidate]);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      throw new BrokerError(
        "invalid_params",
        `tool ${definition.name} cannot be mounted in the tree: ${err.problems.join("; ")}`,
        { problems: err.problems },
      );
    }
  }
}

function isNotFound(err: unknown): boolean {
  return err instanceof BrokerError && err.kind === "not_found";
}
