import { createHash, timingSafeEqual } from "node:crypto";
import type { Principal } from "../contract/router.js";
import { ALL_SCOPES } from "./scopes.js";

export interface TokenEntry {
  readonly id: string;
  /** SHA-256 of the token, hex. */
  readonly sha256: string;
  readonly scopes: readonly string[];
}

/**
 * The tokens a broker accepts, kept only as SHA-256 digests. A presented token
 * is hashed and compared with every entry in constant time, so neither which
 * entry nor how much of it matched leaks through timing.
 */
export class TokenBook {
  private readonly entries: { principal: Principal; digest: Buffer }[];

  constructor(tokens: readonly TokenEntry[], sharedSecret?: string) {
    this.entries = tokens.map((t) => ({
      principal: { id: t.id, scopes: t.scopes },
      digest: Buffer.from(t.sha256, "hex"),
    }));
    if (sharedSecret !== undefined) {
      this.entries.push({
        principal: { id: "shared-secret", scopes: ALL_SCOPES },
        digest: sha256(sharedSecret),
      });
    }
  }

  /** False when nothing is asked of callers. */
  get required(): boolean {
    return this.entries.length > 0;
  }

  /** How many tokens are accepted (the shared secret counts as one). */
  get size(): number {
    return this.entries.length;
  }

  /** The principal of a presented token, or undefined. */
  authenticate(token: string): Principal | undefined {
    return this.authenticateDigest(sha256(token));
  }

  /** The same, from the token's SHA-256, for a caller that needs the digest too. */
  authenticateDigest(digest: Buffer): Principal | undefined {
    let found: Principal | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.digest, digest) && found === undefined) found = entry.principal;
    }
    return found;
  }
}

export function sha256(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** The principal of a broker that asks nothing, and of stdio, whose caller started it. */
export const EVERYONE: Principal = { id: "anonymous", scopes: ALL_SCOPES };
