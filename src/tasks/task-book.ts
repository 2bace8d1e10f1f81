import { BrokerError } from "../contract/errors.js";
import { isJsonObject, parseJson } from "../contract/json-text.js";
import type { StateStore } from "../state/store.js";
import { TERMINAL, type TaskRecord } from "./task.js";

/** How often the instance running a task says it still is; three misses and it is taken for dead. */
export const HEARTBEAT_MS = 2000;
const LEASE_MS = 3 * HEARTBEAT_MS;

/** At most this many tasks are read for one listing. */
const MAX_LISTED = 1000;

/**
 * The tasks in the state store: each a JSON record under `task:<id>`, changed
 * only by compare-and-set, so that of two instances (or twenty approvers)
 * acting on one task at once exactly one wins. The instance running a task
 * holds a lease under `task-run:<id>` and renews it; a `working` task whose
 * lease has lapsed is read as `failed`, so a task whose instance died is never
 * left working for ever, nor silently lost.
 */
export class TaskBook {
  constructor(
    private readonly store: StateStore,
    /** This instance, named in the tasks it runs. */
    readonly instance: string,
  ) {}

  /** Stores a new task; a `working` one is leased to this instance first. */
  async create(task: TaskRecord): Promise<void> {
    if (task.status === "working") await this.lease(task.id);
    await this.store.set(key(task.id), JSON.stringify(task), ttlOf(task));
  }

  /** The task, with what time has decided since it was written (a lapsed lease, an expired approval). */
  async read(id: string): Promise<TaskRecord | undefined> {
    for (;;) {
      const raw = await this.store.get(key(id));
      if (raw === undefined) return undefined;
      const task = parseTask(raw);
      const settled = await this.settled(task);
      if (settled === task) return task;
      if (await this.store.compareAndSet(key(id), raw, JSON.stringify(settled), ttlOf(settled)))
        return settled;
    }
  }

  /**
   * Changes a task by `change` where `when` holds of it as it is now,
   * atomically: answers the task after the change, or as it was where `when`
   * did not hold (`changed` false).
   */
  async update(
    id: string,
    when: (task: TaskRecord) => boolean,
    change: (task: TaskRecord) => TaskRecord,
  ): Promise<{ task: TaskRecord; changed: boolean } | undefined> {
    for (;;) {
      const raw = await this.store.get(key(id));
      if (raw === undefined) return undefined;
      const stored = parseTask(raw);
      const task = await this.settled(stored);
      if (!when(task)) {
        // What time decided is written, as `read` writes it.
        if (task !== stored)
          await this.store.compareAndSet(key(id), raw, JSON.stringify(task), ttlOf(task));
        return { task, changed: false };
      }
      const next = { ...change(task), updated_at: new Date().toISOString() };
      if (await this.store.compareAndSet(key(id), raw, JSON.stringify(next), ttlOf(next))) {
        if (TERMINAL.has(next.status)) await this.store.delete(leaseKey(id), this.instance);
        return { task: next, changed: true };
      }
    }
  }

  /** The tasks there are, up to a thousand, filtered by `keep`. */
  async list(keep: (task: TaskRecord) => boolean): Promise<TaskRecord[]> {
    const raws = await this.store.valuesUnder("task:", MAX_LISTED);
    const tasks: TaskRecord[] = [];
    for (const raw of raws) {
      const task = await this.settled(parseTask(raw));
      if (keep(task)) tasks.push(task);
    }
    return tasks.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** Takes or renews this instance's lease on a task it runs. */
  lease(id: string): Promise<void> {
    return this.store.set(leaseKey(id), this.instance, LEASE_MS);
  }

  /** The id of the task an approval binding made, if one is remembered. */
  boundTask(binding: string): Promise<string | undefined> {
    return this.store.get(`task-binding:${binding}`);
  }

  /** Remembers the task of an approval binding, for as long as the task is kept. */
  bind(binding: string, task: TaskRecord): Promise<void> {
    return this.store.set(`task-binding:${binding}`, task.id, ttlOf(task));
  }

  /** The task as time has left it: what it would be if written now. */
  private async settled(task: TaskRecord): Promise<TaskRecord> {
    const now = new Date().toISOString();
    if (task.status === "working" && (await this.store.get(leaseKey(task.id))) === undefined) {
      return {
        ...task,
        status: "failed",
        updated_at: now,
        error: {
          kind: "unavailable",
          message: `the broker instance running this task (${task.instance ?? "unknown"}) stopped before it finished; the call may or may not have reached the tool`,
        },
      };
    }
    if (task.status === "awaiting_approval" && task.approval && task.approval.expires_at <= now) {
      return {
        ...task,
        status: "expired",
        updated_at: now,
        status_message: `nobody approved it by ${task.approval.expires_at}; call again to ask anew`,
      };
    }
    return task;
  }
}

function key(id: string): string {
  return `task:${id}`;
}

function leaseKey(id: string): string {
  return `task-run:${id}`;
}

function ttlOf(task: TaskRecord): number {
  return Math.max(1, Date.parse(task.expires_at) - Date.now());
}

function parseTask(raw: string): TaskRecord {
  const value = parseJson(raw);
  if (!isJsonObject(value) || typeof value.id !== "string" || typeof value.status !== "string")
    throw new BrokerError("internal", "a task record in the state store is not one");
  return value as unknown as TaskRecord;
}
