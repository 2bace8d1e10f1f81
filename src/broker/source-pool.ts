import type { Logger } from "../contract/log.js";
import { BrokerError } from "../contract/errors.js";
import type { SourceStatus, SupervisedRouter } from "../contract/router.js";
import type { SourceEvent } from "./broker.js";
import { createSource } from "../sources/create-source.js";
import type { Mount } from "../tree/skeleton.js";
import { sourceDefinition } from "./check-config.js";

interface Running {
  mount: Mount;
  readonly router: SupervisedRouter;
  /** What makes the backend process what it is: a change means a restart. */
  readonly definition: string;
  readonly unsubscribe: () => void;
}

/**
 * The running sources, by mount path: started in parallel, their signals
 * forwarded with the source's name, stopped when removed or changed.
 */
export class SourcePool {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly log: Logger,
    private readonly onToolsChanged: () => void,
    private readonly emit: (source: string, event: SourceEvent) => void,
  ) {}

  /** Starts sources in parallel; failures throw unless tolerated (then they keep retrying). */
  async start(mounts: readonly Mount[], tolerate: boolean): Promise<void> {
    const started = mounts.map((mount) => {
      const router = createSource(mount, this.log);
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
        router,
        definition: sourceDefinition(mount),
        unsubscribe: () => {
          offChange();
          offNotification();
        },
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
    for (const f of failures) this.log.warn({ problem: f }, "source left out until it starts");
  }

  /**
   * Keeps the sources of `mounts` whose definition is unchanged (taking their
   * new mount settings), stops every other one, and returns the mounts that
   * still need starting.
   */
  async retain(
    mounts: readonly Mount[],
  ): Promise<{ toStart: Mount[]; kept: number; stopped: number }> {
    const wanted = new Map(mounts.map((m) => [m.id, m]));
    const stale = [...this.running.values()].filter(
      (r) =>
        wanted.get(r.mount.id) === undefined ||
        r.definition !== sourceDefinition(wanted.get(r.mount.id)!),
    );
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

  /** The router of a running source; `unavailable` if there is none. */
  router(id: string): SupervisedRouter {
    const r = this.running.get(id);
    if (!r) throw new BrokerError("unavailable", `source ${id} is not running`, { source: id });
    return r.router;
  }

  statuses(): Record<string, SourceStatus> {
    const out: Record<string, SourceStatus> = {};
    for (const [id, r] of this.running) out[id] = r.router.status();
    return out;
  }

  async close(): Promise<void> {
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((r) => this.stop(r)));
  }

  private async stop(r: Running): Promise<void> {
    r.unsubscribe();
    await r.router
      .close()
      .catch((err: Error) =>
        this.log.warn({ source: r.mount.id, err: err.message }, "close failed"),
      );
  }
}
