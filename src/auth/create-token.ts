import { randomBytes } from "node:crypto";
import { TokenEntrySchema } from "../config/schema.js";
import { sha256 } from "./token-book.js";

/**
 * A new random token (32 bytes, base64url) and the config entry that accepts
 * it. Scopes are checked as the config would check them, so a typo fails here
 * rather than at the next start.
 */
export function createToken(
  id: string,
  scopes: readonly string[],
): { token: string; id: string; sha256: string; scopes: string[] } {
  const token = `mcpb_${randomBytes(32).toString("base64url")}`;
  const entry = TokenEntrySchema.safeParse({
    id,
    sha256: sha256(token).toString("hex"),
    scopes: [...scopes],
  });
  if (!entry.success)
    throw new Error(
      entry.error.issues.map((i) => `${i.path.join(".") || "token"}: ${i.message}`).join("; "),
    );
  return { token, ...entry.data };
}
