import { BrokerError } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import type { SoleClient } from "../contract/sole-client.js";
import type { Router, SourceEvent, SourceStatus } from "../contract/router.js";
import type { ToolRegistry } from "../registry/tool-registry.js";
import type { AnySourceKind } from "../sources/kind.js";
import { kindOf } from "../sources/kinds.js";
import type { Mount } from "../tree/skeleton.js";
import { Supervisor, type SourceIntroduction } from "./supervisor.js";

interface Running {
  mount: Mount;
  readonly kind: AnySourceKind;
  readonly supervisor: Supervisor;
  /** What makes the backend what it is: a change means a restart. */
  readonly identity: string;
  readonly unsubscribe: () => void;
}

/**
 * The running sources, by mount path, each under its supervisor: started in
 * parallel, their signals forwarded with the source's name, stopped when
 * removed or changed.
 */
export class SourcePool {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly log: Logger,
    private readonly registry: ToolRegistry,
    private readonly onToolsChanged: () => void,
    private readonly emit: (source: string, event: SourceEvent) => void,
    private readonly soleClient?: SoleClient,
  ) {}

  /**
   * Starts sources in parallel. One that fails is retried by its supervisor
   * until it comes up; unless `tolerate`, the first failures are also thrown.
   */
  async start(mounts: readonly Mount[], tolerate: boolean): Promise<void> {
    const started = mounts.map((mount) => {
      const kind = kindOf(mount.source.backend);
      const router = kind.create(mount.source, {
        id: mount.id,
        log: this.log,
        registry: this.registry,
        soleClient: this.soleClient,
      });
      const supervisor = new Supervisor(mount.id, router, this.log, this.onToolsChanged);
      const offChange =
        router.onChange?.((what) => {
          if (what === "tools") this.onToolsChanged();
          this.emit(mount.name, { type: "changed", what });
        }) ?? (() => undefined);
      const offNotification =
        router.onNotification?.((notification) =>
          this.emit(mount.name, { type: "notification", notification }),
        ) ?? (() => undefined);
      this.running.set(mount.id, {
        mount,
        kind,
        supervisor,
        identity: kind.identity(mount.source),
        unsubscribe: () => {
          offChange();
          offNotification();
        },
      });
      return supervisor.start();
    });
    const failures = (await Promise.allSettled(started))
      .map((r, i) =>
        r.status === "rejected" ? `${mounts[i]?.id}: ${(r.reason as Error).message}` : null,
      )
      .filter((f): f is string => f !== null);
    if (failures.length === 0) return;
    if (!tolerate)
      throw new BrokerError("unavailable", `sources failed to start:\n  ${failures.join("\n  ")}`);
    for (const f of failures) this.log.warn({ problem: f }, "source left out until it starts");
  }

  /**
   * Keeps the sources of `mounts` whose identity is unchanged (taking their
   * new mount settings), stops every other one, and returns the mounts that
   * still need starting.
   */
  async retain(
    mounts: readonly Mount[],
  ): Promise<{ toStart: Mount[]; kept: number; stopped: number }> {
    const wanted = new Map(mounts.map((m) => [m.id, m]));
    const stale = [...this.running.values()].filter((r) => {
      const next = wanted.get(r.mount.id);
      return (
        next === undefined ||
        next.source.backend !== r.kind.backend ||
        r.identity !== r.kind.identity(next.source)
      );
    });
    for (const r of stale) this.running.delete(r.mount.id);
    await Promise.all(stale.map((r) => this.stop(r)));
    for (const r of this.running.values()) r.mount = wanted.get(r.mount.id)!;
    return {
      toStart: mounts.filter((m) => !this.running.has(m.id)),
      kept: this.running.size,
      stopped: stale.length,
    };
  }

  has(id: string): boolean {
    return this.running.has(id);
  }

  /** The router of a source, once it is up (see Supervisor.ready). */
  ready(id: string, signal: AbortSignal): Router | Promise<Router> {
    return this.get(id).supervisor.ready(signal);
  }

  /** Why a source is not up, in words; nothing while it is. */
  notUp(id: string): string | undefined {
    return this.get(id).supervisor.notUp();
  }

  /** A source's tools: listed now while it is up, the last known while it is not. */
  listTools(id: string): ReturnType<Supervisor["listTools"]> {
    return this.get(id).supervisor.listTools();
  }

  /** The kind of a running source. */
  kind(id: string): AnySourceKind {
    return this.get(id).kind;
  }

  statuses(): Record<string, SourceStatus> {
    const out: Record<string, SourceStatus> = {};
    for (const [id, r] of this.running) out[id] = r.supervisor.status();
    return out;
  }

  /** How a source introduced itself the last time it came up. */
  introduced(id: string): SourceIntroduction {
    return this.get(id).supervisor.introduced();
  }

  /** Ends what a client session holds at every source (its subscriptions). */
  async endSession(session: string): Promise<void> {
    await Promise.all(
      [...this.running.values()].map((r) =>
        r.supervisor
          .endSession(session)
          .catch((err: Error) =>
            this.log.warn({ source: r.mount.id, err: err.message }, "ending a session failed"),
          ),
      ),
    );
  }

  async close(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((r) => this.stop(r)));
  }

  private get(id: string): Running {
    const r = this.running.get(id);
    if (!r) throw new BrokerError("unavailable", `source ${id} is not running`, { source: id });
    return r;
  }

  private async stop(r: Running): Promise<void> {
    r.unsubscribe();
    await r.supervisor
      .close()
      .catch((err: Error) =>
        this.log.warn({ source: r.mount.id, err: err.message }, "close failed"),
      );
  }
}
