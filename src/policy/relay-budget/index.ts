import type { ServerNotification } from "@modelcontextprotocol/server";
import { BrokerError } from "../../contract/errors.js";
import type { CallContext } from "../../contract/router.js";
import type { Link } from "../link.js";

/** What a backend may send its caller during one request. */
export interface RelayBudget {
  /** Notifications (logs, progress) relayed; later ones are dropped. */
  readonly notifications: number;
  /** Their size in all, serialized; later ones are dropped. */
  readonly notificationBytes: number;
  /** Requests to the caller (sampling, elicitation, roots) in all; later ones are refused. */
  readonly requests: number;
  /** Of those, at once; more are refused. */
  readonly requestsAtOnce: number;
}

export const DEFAULT_RELAY_BUDGET: RelayBudget = {
  notifications: 1000,
  notificationBytes: 1024 * 1024,
  requests: 64,
  requestsAtOnce: 8,
};

/**
 * Bounds what a backend relays to its caller during one request of any kind:
 * its logs and progress (past the budget, dropped) and its own requests for
 * sampling, elicitation and roots (past the budget, refused to the backend
 * with an error saying so). A backend had sent 300,000 logs (345 MB) and
 * 20,000 sampling requests through one call. `dropped` hears, once per
 * request, that something was left out.
 *
 * @example
 * compose([relayBudget(DEFAULT_RELAY_BUDGET, (path, what) => log.warn({ path, what }, "relay budget spent"))], callSource)
 */
export function relayBudget(
  budget: RelayBudget,
  dropped: (path: string, what: string) => void,
): Link {
  return async function relayBudgetLink(request, next) {
    const { notify, progress, request: ask } = request.ctx;
    if (!notify && !progress && !ask) return next(request);
    let notifications = 0;
    let bytes = 0;
    let asked = 0;
    let asking = 0;
    let told = false;
    const spent = (what: string) => {
      if (told) return;
      told = true;
      dropped(request.path, what);
    };
    const within = (size: number) => {
      if (notifications + 1 > budget.notifications || bytes + size > budget.notificationBytes) {
        spent(
          `notifications past ${budget.notifications} or ${budget.notificationBytes} bytes were dropped`,
        );
        return false;
      }
      notifications++;
      bytes += size;
      return true;
    };
    const ctx: CallContext = {
      ...request.ctx,
      ...(notify && {
        notify: (n: ServerNotification) => {
          if (within(JSON.stringify(n).length)) notify(n);
        },
      }),
      ...(progress && {
        progress: (p) => {
          if (within(JSON.stringify(p).length)) progress(p);
        },
      }),
      ...(ask && {
        request: async (r, signal, key) => {
          if (asked >= budget.requests || asking >= budget.requestsAtOnce) {
            spent(
              `requests to the caller past ${budget.requests} (${budget.requestsAtOnce} at once) were refused`,
            );
            throw new BrokerError(
              "rate_limited",
              `${r.method} refused: the backend asked its caller more than ${budget.requests} times in one request (${budget.requestsAtOnce} at once)`,
            );
          }
          asked++;
          asking++;
          try {
            return await ask(r, signal, key);
          } finally {
            asking--;
          }
        },
      }),
    };
    return next({ ...request, ctx });
  };
}
