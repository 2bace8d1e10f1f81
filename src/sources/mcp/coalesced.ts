import { setTimeout as delay } from "node:timers/promises";

/**
 * A task run again on demand, coalesced: one run at a time, and demands that
 * come meanwhile are served by one more run, at least `intervalMs` after the
 * last began. A backend announcing changes in a loop costs one run per
 * interval, not one per announcement. The task answers false when there is
 * no point in running it any more (its connection has gone).
 */
export function coalesced(intervalMs: number, task: () => Promise<boolean>): () => void {
  let running = false;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      let began = 0;
      do {
        again = false;
        const wait = began + intervalMs - Date.now();
        if (wait > 0) await delay(wait);
        began = Date.now();
        if (!(await task())) break;
      } while (again);
      running = false;
    })();
  };
}
