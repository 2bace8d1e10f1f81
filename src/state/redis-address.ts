import { Redis, type RedisOptions } from "ioredis";

/**
 * Where a Redis listens: a `redis://` or `rediss://` URL (TCP, TLS), which
 * ioredis reads itself, or its Unix socket on this host.
 */
export type RedisAddress =
  | { readonly url: string }
  | {
      readonly path: string;
      readonly db?: number;
      readonly username?: string;
      readonly password?: string;
    };

/** What a `unix:` address may say after its path, as redis-py and go-redis read it. */
const SOCKET_PARAMETERS = new Set(["db", "username", "password"]);

/**
 * The address a `state` of `redis://…`, `rediss://…` or `unix:///path/to/redis.sock`
 * names. A socket path may be followed by `?db=N`, `username=` and `password=`
 * (a socket URL has no place for credentials before its path). Throws what is
 * wrong with a socket address, in words.
 */
export function redisAddress(spec: string): RedisAddress {
  if (!spec.startsWith("unix:")) return { url: spec };
  // Messages name the path only: what follows it may be a password.
  const url = URL.parse(spec);
  const path = url && url.host === "" ? socketPath(url.pathname) : undefined;
  if (url === null || path === undefined) {
    throw new Error(
      'the state\'s unix: address names no socket on this host; write "unix:///path/to/redis.sock" (three slashes, an absolute path)',
    );
  }
  if (url.hash !== "")
    throw new Error(
      `state unix://${path}: a socket address has no #fragment (write # in a path as %23)`,
    );
  const address: { path: string; db?: number; username?: string; password?: string } = { path };
  for (const [name, value] of url.searchParams) {
    if (!SOCKET_PARAMETERS.has(name)) {
      throw new Error(
        `state unix://${path}: unknown parameter "${name}"; a socket takes db, username and password`,
      );
    }
    if (name === "db") {
      if (!/^\d{1,5}$/.test(value))
        throw new Error(`state unix://${path}: db is a database number, such as ?db=0`);
      address.db = Number(value);
    } else address[name as "username" | "password"] = value;
  }
  return address;
}

/** The absolute path a URL's path stands for, or undefined if it is none. */
function socketPath(encoded: string): string | undefined {
  try {
    const path = decodeURIComponent(encoded);
    return path.length > 1 && path.startsWith("/") && !path.includes("\0") ? path : undefined;
  } catch {
    return undefined;
  }
}

/** A connection to `address` with `options`. */
export function connectRedis(address: RedisAddress, options: RedisOptions): Redis {
  return "url" in address ? new Redis(address.url, options) : new Redis({ ...options, ...address });
}
