import { createHash } from "node:crypto";

/** A token entry for a config, with the token itself for the test to present. */
export function token(
  id: string,
  scopes: string[],
): { id: string; sha256: string; scopes: string[]; bearer: string } {
  const bearer = `tok-${id}-${Math.random().toString(36).slice(2)}`;
  return { id, sha256: createHash("sha256").update(bearer).digest("hex"), scopes, bearer };
}

export const bearer = (t: { bearer: string }) => ({ authorization: `Bearer ${t.bearer}` });

/** The config's entries for test tokens: what `token` made, less the token itself. */
export function configEntries(
  ...tokens: { id: string; sha256: string; scopes: string[]; bearer: string }[]
): { id: string; sha256: string; scopes: string[] }[] {
  return tokens.map(({ bearer: _b, ...entry }) => entry);
}
