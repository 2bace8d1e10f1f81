import { randomUUID } from "node:crypto";
import { digestOf } from "../../contract/digest.js";
import { BrokerError } from "../../contract/errors.js";
import type { Bucket, StateStore } from "../../state/store.js";
import { policyEvent } from "../../telemetry/mcp-operation.js";
import type { Link, Request, Result, ToolCall } from "../link.js";
import { resultBytes } from "../result-bytes.js";
import { rateLimited, RateLimits, type RateLimitRule } from "./rate-limits.js";
import { ResultQuota, type ResultQuotaLimits } from "./result-quota.js";

export type { RateLimitRule };

type IdempotencyRecord =
  | { state: "running"; payload: string; call: string }
  | { state: "done"; payload: string; result: Result }
  /** The call ran, and its result was not kept (why): a repeat is refused, never run again. */
  | { state: "unkept"; payload: string; why: string };

/** Where a result says its idempotency key did not keep it. */
export const UNKEPT_META = "mcp-broker/idempotency";

/** What a token may keep of idempotent results unless the config says otherwise. */
export const DEFAULT_RESULT_QUOTA: ResultQuotaLimits = {
  maxResultBytes: 1024 * 1024,
  maxBytesPerToken: 64 * 1024 * 1024,
  maxKeysPerToken: 10_000,
};

const POLL_MS = 25;
/**
 * How long a claim outlives its holder: the running instance renews it a
 * third of the way through, so that a retry after the holder died runs
 * within seconds, not after the call's whole timeout.
 */
const LEASE_MS = 10_000;

/**
 * Whether a request may run now, and whether it ran before: rate limits and
 * idempotency, in one step of the state store (at most one round trip to
 * Redis; none for a rate limit whose tokens this instance holds in a lease).
 *
 * Rate limits are token buckets per caller and path glob, for requests of
 * every kind, shared by the instances of one store. Over a limit:
 * `rate_limited` (HTTP 429) with the seconds to wait.
 *
 * A tool call with an idempotency key runs at most once: the first call
 * with a key claims it (one claim wins across instances) and stores its
 * result; a repeat with the same payload gets that result without running
 * the tool (and without a token), or waits for it while it runs; a repeat
 * with another payload is `idempotency_conflict` (HTTP 409). Keys are per
 * token and expire after `ttlMs`. A call that fails without a result
 * releases its key, if it still holds it. A claim is a lease its instance
 * renews: an instance that dies mid-call frees the key within seconds, and a
 * retry runs the call (which may then have run twice, if the dead instance's
 * backend got as far: no broker can know). The result is handed to the store
 * before the answer leaves (`StateStore.handOff`), so a repeat of an answered
 * call never runs it again, whichever instance it reaches. A result over
 * `quota`'s bounds is not kept: the answer says so (`_meta` and the call's
 * `unkept`), and a repeat is refused as a conflict, not run again.
 *
 * @example
 * compose([admission(store, [{ token: "*", path: "/**", perMinute: 600, burst: 60 }], 86_400_000)], callSource)
 */
export function admission(
  store: StateStore,
  rules: readonly RateLimitRule[],
  ttlMs: number,
  leaseMs = LEASE_MS,
  quota: ResultQuota = new ResultQuota(DEFAULT_RESULT_QUOTA),
): Link {
  const rateLimits = new RateLimits(rules);
  const bucketsOf = (request: Request) =>
    rateLimits.bucketsOf(request.ctx.principal.id, request.path);

  return async function admissionLink(request, next) {
    const limits = bucketsOf(request);
    const buckets: Bucket[] = limits.map((l) => l.bucket);
    const key = request.kind === "tools/call" ? request.ctx.idempotencyKey : undefined;
    if (key === undefined) {
      if (buckets.length > 0) {
        const admitted = await store.admit(buckets);
        policyEvent("mcp_broker.admission", {
          buckets: buckets.length,
          admitted: admitted.admitted,
        });
        if ("waitS" in admitted)
          throw rateLimited(
            request.ctx.principal.id,
            limits[admitted.bucket]!.rule,
            admitted.waitS,
          );
      }
      return next(request);
    }
    const call = request as ToolCall;
    if (key.length === 0 || key.length > 255) {
      throw new BrokerError("invalid_params", "an idempotency key is 1 to 255 characters");
    }
    const storeKey = `idem:${call.ctx.principal.id}:${key}`;
    const payload = digestOf({ path: call.path, args: call.args });
    // Unique to this call: a claim found holding exactly this is this call's own (below).
    const running = JSON.stringify({
      state: "running",
      payload,
      call: randomUUID(),
    } satisfies IdempotencyRecord);
    const deadline = Date.now() + call.leaf.timeoutMs + leaseMs * 3;

    for (;;) {
      const admitted = await store.admit(buckets, { key: storeKey, value: running, leaseMs });
      // Held by this very claim: Redis ran it, and the answer was lost with its connection
      // before ioredis sent it again on a new one. The call is admitted (its tokens were taken
      // then); waiting would wait for itself until the claim's lease ran out.
      const ours = admitted.admitted || ("held" in admitted && admitted.held === running);
      policyEvent("mcp_broker.admission", {
        buckets: buckets.length,
        admitted: ours,
        idempotency_key: true,
      });
      if (ours) break;
      if ("waitS" in admitted)
        throw rateLimited(call.ctx.principal.id, limits[admitted.bucket]!.rule, admitted.waitS);
      const record = JSON.parse(admitted.held) as IdempotencyRecord;
      if (record.payload !== payload) {
        throw new BrokerError(
          "idempotency_conflict",
          `idempotency key "${key}" was used with a different call; use a new key for a new call`,
          { idempotency_key: key },
        );
      }
      if (record.state === "done") return record.result;
      if (record.state === "unkept") {
        throw new BrokerError(
          "idempotency_conflict",
          `the call with idempotency key "${key}" ran, and its result was not kept (${record.why}); it is not run again: use a new key to run it again`,
          { idempotency_key: key },
        );
      }
      if (Date.now() > deadline || call.ctx.signal.aborted) {
        throw new BrokerError(
          "timeout",
          `the call holding idempotency key "${key}" did not finish in time`,
          { idempotency_key: key },
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
      // Only while it is still this call's: a lapsed claim may be another's by now.
      await store.delete(storeKey, running).catch(() => undefined);
      throw err;
    } finally {
      clearInterval(renewal);
    }
    // Handed to the store before the answer leaves: an answer a client has seen is one a repeat
    // finds, even if this instance dies the moment after. Redis's acknowledgement is not
    // awaited (that would be a second round trip a call): a write the kernel holds survives
    // this process. A failed write leaves the claim to lapse, and a repeat then runs the call
    // again; the answer is not withheld for it.
    const why = quota.take(call.ctx.principal.id, resultBytes(result), Date.now() + ttlMs);
    const record: IdempotencyRecord =
      why === undefined ? { state: "done", payload, result } : { state: "unkept", payload, why };
    await store.handOff(storeKey, JSON.stringify(record), ttlMs).catch(() => undefined);
    if (why === undefined) return result;
    call.ctx.unkept?.(why);
    return { ...result, _meta: { ...result._meta, [UNKEPT_META]: { kept: false, why } } };
  };
}
