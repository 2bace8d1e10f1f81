import type { MessageBus } from "../state/store.js";

const CHANGED_CHANNEL = "task-changed";

/**
 * Who waits for which task to change, woken when it does: at once for a
 * change made here, by the store's bus for one made by another instance.
 * A waiter also wakes when its time is up, so a message lost on the bus
 * costs a wait, never a decision.
 */
export class TaskWaits {
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly unsubscribe: (() => void) | undefined;

  constructor(private readonly bus: MessageBus | undefined) {
    this.unsubscribe = bus?.subscribe(CHANGED_CHANNEL, (id) => this.wake(id));
  }

  /** Says a task changed, here and to the other instances. */
  changed(id: string): void {
    if (this.bus) void this.bus.publish(CHANGED_CHANNEL, id).catch(() => this.wake(id));
    else this.wake(id);
  }

  /** Resolves at the task's next change, after `ms`, or when `signal` aborts. */
  next(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        const set = this.waiting.get(id);
        set?.delete(done);
        if (set?.size === 0) this.waiting.delete(id);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
      let set = this.waiting.get(id);
      if (!set) this.waiting.set(id, (set = new Set()));
      set.add(done);
    });
  }

  close(): void {
    this.unsubscribe?.();
    for (const id of [...this.waiting.keys()]) this.wake(id);
  }

  private wake(id: string): void {
    for (const done of [...(this.waiting.get(id) ?? [])]) done();
  }
}
