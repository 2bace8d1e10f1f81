import type { BrokerAddress } from "./client-target.js";

/**
 * The `Authorization` header in a client's own words for a variable
 * (`${NAME}`, `${env:NAME}`, …), or the token as written; none without one.
 */
export function authorizationHeader(
  broker: BrokerAddress,
  variable: (name: string) => string,
): { headers?: { Authorization: string } } {
  const token = broker.token;
  if (!token) return {};
  const value = "env" in token ? variable(token.env) : token.literal;
  return { headers: { Authorization: `Bearer ${value}` } };
}
