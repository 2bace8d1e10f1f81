import type { AddressPolicy } from "./address-policy.js";
import { guardedRequest, RequestFailed } from "./guarded-request.js";

/** `fetch`'s own signature, for libraries that take a fetch of the caller's. */
export type Fetch = (input: string | URL, init?: Parameters<typeof fetch>[1]) => Promise<Response>;

export interface GuardedFetchOptions {
  readonly policy: AddressPolicy;
  /** The most of an answer read; a longer one fails the request. */
  readonly maxBytes: number;
  /** Where the caller gives no signal of its own. */
  readonly timeoutMs: number;
}

/**
 * `fetch` through `guardedRequest`, for a library that fetches on its own
 * (jose's key sets, the MCP SDK's OAuth discovery): every connection checked
 * against the policy, redirects followed within it, answers bounded. As
 * `fetch` does, it fails with a TypeError (the RequestFailed as its cause).
 */
export function guardedFetch(options: GuardedFetchOptions): Fetch {
  return async (input, init) => {
    const body = init?.body;
    try {
      const answer = await guardedRequest(String(input), {
        method: init?.method === "POST" ? "POST" : "GET",
        headers: Object.fromEntries(new Headers(init?.headers).entries()),
        ...(body === undefined || body === null ? {} : { body: Buffer.from(String(body)) }),
        policy: options.policy,
        maxBytes: options.maxBytes,
        signal: init?.signal ?? AbortSignal.timeout(options.timeoutMs),
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(answer.headers)) {
        if (typeof value === "string") headers.set(name, value);
      }
      return new Response(answer.status === 204 ? null : new Uint8Array(answer.body), {
        status: answer.status,
        headers,
      });
    } catch (err) {
      if (err instanceof RequestFailed) throw new TypeError(err.message, { cause: err });
      throw err;
    }
  };
}
