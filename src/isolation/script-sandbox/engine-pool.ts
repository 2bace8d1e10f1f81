import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { engineGrew, type EngineFactory } from "./engine.js";

/**
 * Engines kept between runs, each for the caller whose run it served: a
 * fresh engine per run costs about ten times a kept one (its memory is new to
 * the garbage collector each time), and keeping one for its caller alone
 * means no run is ever in memory another caller's run had. An engine comes
 * back only if its run left it sound and at its first size; one that grew is
 * dropped, and its memory with it.
 *
 * @example
 * const pool = new EnginePool(await loadEngine(), 8);
 * const engine = await pool.take("alice", 64 << 20);
 * // … run alice's script …
 * pool.give("alice", 64 << 20, engine, run.sound());
 */
export class EnginePool {
  /** Idle engines by caller and heap size, the least recently used first. */
  private readonly idle = new Map<string, QuickJSWASMModule[]>();
  private count = 0;

  constructor(
    private readonly make: EngineFactory,
    private readonly max: number,
  ) {}

  take(owner: string, memoryBytes: number): Promise<QuickJSWASMModule> {
    const key = keyOf(owner, memoryBytes);
    const kept = this.idle.get(key)?.pop();
    if (!kept) return this.make(memoryBytes);
    this.count--;
    if (this.idle.get(key)!.length === 0) this.idle.delete(key);
    return Promise.resolve(kept);
  }

  give(owner: string, memoryBytes: number, engine: QuickJSWASMModule, sound: boolean): void {
    if (!sound || engineGrew(engine) || this.max === 0) return;
    if (this.count >= this.max) this.dropOldest();
    const key = keyOf(owner, memoryBytes);
    const engines = this.idle.get(key) ?? [];
    engines.push(engine);
    // Re-inserted: the map's order is the order of last use.
    this.idle.delete(key);
    this.idle.set(key, engines);
    this.count++;
  }

  private dropOldest(): void {
    const [key, engines] = this.idle.entries().next().value!;
    engines.shift();
    this.count--;
    if (engines.length === 0) this.idle.delete(key);
  }
}

function keyOf(owner: string, memoryBytes: number): string {
  return `${memoryBytes}\0${owner}`;
}
