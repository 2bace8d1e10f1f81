import { digestOf } from "../../contract/digest.js";
import { BrokerError } from "../../contract/errors.js";
import type { StateStore } from "../../state/store.js";
import type { Link, Result } from "../link.js";

type IdempotencyRecord =
  { state: "running"; payload: string } | { state: "done"; payload: string; result: Result };

const POLL_MS = 25;
/**
 * How long a claim outlives its holder: the running instance renews it a
 * third of the way through, so that a retry after the holder died runs
 * within seconds, not after the call's whole timeout.
 */
const LEASE_MS = 10_000;

/**
 * Runs a tool call that carries an idempotency key at most once (other
 * requests pass untouched: they change nothing a repeat could duplicate). The first call
 * with a key claims it in the state store (compare-and-set, so one claim wins
 * across instances) and stores its result; a repeat with the same payload gets
 * that result without running the tool, or waits for it while it runs; a
 * repeat with another payload is `idempotency_conflict` (HTTP 409). Keys are
 * per token, and expire after `ttlMs`. A call that fails without a result
 * releases its key, so that it can be retried. A claim is a lease the
 * running instance renews: an instance that dies mid-call frees the key
 * within seconds, and a retry runs the call (which may then have run twice,
 * if the dead instance's backend got as far: no broker can know).
 *
 * @example
 * compose([idempotency(store, 86_400_000)], callSource)
 */
export function idempotency(store: StateStore, ttlMs: number, leaseMs = LEASE_MS): Link {
  return async function idempotencyLink(request, next) {
    const key = request.ctx.idempotencyKey;
    if (key === undefined || request.kind !== "tools/call") return next(request);
    const call = request;
    if (key.length === 0 || key.length > 255) {
      throw new BrokerError("invalid_params", "an idempotency key is 1 to 255 characters");
    }
    const storeKey = `idem:${call.ctx.principal.id}:${key}`;
    const payload = digestOf({ path: call.path, args: call.args });
    const running = JSON.stringify({ state: "running", payload } satisfies IdempotencyRecord);
    const deadline = Date.now() + call.leaf.timeoutMs + leaseMs * 3;

    while (!(await store.compareAndSet(storeKey, undefined, running, leaseMs))) {
      const raw = await store.get(storeKey);
      if (raw === undefined) continue;
      const record = JSON.parse(raw) as IdempotencyRecord;
      if (record.payload !== payload) {
        throw new BrokerError(
          "idempotency_conflict",
          `idempotency key "${key}" was used with a different call; use a new key for a new call`,
          { idempotency_key: key },
        );
      }
      if (record.state === "done") return record.result;
      if (Date.now() > deadline || call.ctx.signal.aborted) {
        throw new BrokerError(
          "timeout",
          `the call holding idempotency key "${key}" did not finish in time`,
          {
            idempotency_key: key,
          },
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }

    const renewal = setInterval(() => {
      store.compareAndSet(storeKey, running, running, leaseMs).catch(() => undefined);
    }, leaseMs / 3);
    let result: Result;
    try {
      result = await next(call);
    } catch (err) {
      await store.delete(storeKey).catch(() => undefined);
      throw err;
    } finally {
      clearInterval(renewal);
    }
    await store.set(
      storeKey,
      JSON.stringify({ state: "done", payload, result } satisfies IdempotencyRecord),
      ttlMs,
    );
    return result;
  };
}
