import { NotDelivered } from "../contract/errors.js";
import type { Request, Result } from "../policy/link.js";
import { dispatch } from "./dispatch.js";
import type { SourcePool } from "./source-pool.js";

/** What the end of the chain needs of the sources: one, once it is up. */
type Sources = Pick<SourcePool, "ready">;

/**
 * The end of the policy chain: the request handed to its source once the
 * source is up (see Supervisor.ready), and sent once more if it never
 * reached the backend (a remote server that went away refuses the
 * connection): the source is then down and restarting, and the request
 * waits for that as one arriving now would, where it was refused before.
 * Nothing ran the first time, so nothing runs twice.
 *
 * @example
 * const invoke = compose(links, (request) => toSource(pool, request));
 */
export function toSource(sources: Sources, request: Request): Promise<Result> {
  return send(sources, request).catch((err: unknown) => {
    if (err instanceof NotDelivered) return send(sources, request);
    throw err;
  });
}

function send(sources: Sources, request: Request): Promise<Result> {
  const router = sources.ready(request.source, request.ctx.signal);
  // A source that is up is called without a turn of the event loop.
  return router instanceof Promise
    ? router.then((r) => dispatch(r, request))
    : dispatch(router, request);
}
