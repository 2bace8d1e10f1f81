import type { MiddlewareHandler } from "hono";
import { BrokerError } from "../../../contract/errors.js";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

export interface HostGuardOptions {
  /** Host names (without port) requests may be addressed to; default: loopback names only. */
  readonly allowedHosts?: readonly string[] | "any";
  /** Origins (`scheme://host[:port]`, or bare host names) browsers may call from; default: loopback. */
  readonly allowedOrigins?: readonly string[];
}

/**
 * Refuses requests whose `Host` or `Origin` is not an allowed one, with 403:
 * the defence against DNS rebinding, where a web page in the user's browser
 * reaches a broker on localhost through a name of the attacker's.
 *
 * @example
 * app.use("*", hostGuard({ allowedHosts: ["broker.internal"] }));
 */
export function hostGuard(options: HostGuardOptions = {}): MiddlewareHandler {
  const anyHost = options.allowedHosts === "any";
  const hosts = new Set(
    (options.allowedHosts === "any" ? [] : (options.allowedHosts ?? LOOPBACK)).map((h) =>
      h.toLowerCase(),
    ),
  );
  const origins = new Set([...(options.allowedOrigins ?? LOOPBACK)].map((o) => o.toLowerCase()));
  return async function hostGuardMiddleware(c, next) {
    const host = c.req.header("host");
    if (!anyHost && (host === undefined || !hosts.has(hostName(host)))) {
      throw new BrokerError(
        "forbidden",
        `Host "${host ?? ""}" is not allowed; add it to http.allowed_hosts in the config if this broker should answer to it`,
      );
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && !originAllowed(origin, origins)) {
      throw new BrokerError(
        "forbidden",
        `Origin "${origin}" is not allowed; add it to http.allowed_origins in the config if browsers there may call this broker`,
      );
    }
    await next();
  };
}

/** `Example.com:8100` → `example.com`; `[::1]:8100` → `[::1]`. */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  return lower.startsWith("[")
    ? lower.slice(0, lower.indexOf("]") + 1)
    : lower.replace(/:\d+$/, "");
}

function originAllowed(origin: string, allowed: ReadonlySet<string>): boolean {
  const lower = origin.toLowerCase();
  if (allowed.has(lower)) return true;
  try {
    return allowed.has(hostName(new URL(lower).host));
  } catch {
    return false;
  }
}
