/**
 * Node's codes for a connection that was never made: a request that failed
 * with one of them was not sent, so sending it again is safe. A reset, or a
 * timeout once connected, is not among them: the request may have arrived.
 */
export const NOT_CONNECTED: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** What Node's codes for a connection that failed mean, in words for whoever configured it. */
export const CONNECT_FAILURE_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "nothing listens at that address (connection refused)",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved: DNS did not answer",
  ECONNRESET: "the connection was reset",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host cannot be reached",
  ENETUNREACH: "the network cannot be reached",
  UND_ERR_CONNECT_TIMEOUT: "the connection timed out",
  UND_ERR_SOCKET: "the connection broke",
};
