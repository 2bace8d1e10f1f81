import { lookup as dnsLookup, type LookupAddress } from "node:dns";

/** Which addresses an outbound request may connect to (the SSRF guard of one caller). */
export interface AddressPolicy {
  /** Whether a connection to `address`, found for `host`, may go ahead. */
  allows(host: string, address: string): boolean;
  /** Why an address is refused, for messages: "outside registry.allowed_hosts (…)". */
  refusal(): string;
}

/** Every address: for an operator who has said so. */
export const ANY_ADDRESS: AddressPolicy = {
  allows: () => true,
  refusal: () => "refused",
};

export type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `http.request`: resolves as Node would and keeps only the
 * addresses the policy allows, failing with a message naming the host when
 * none is, so the check holds for the address actually connected to and a DNS
 * answer that changes between a check and the connection cannot get round it.
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const allowed = addresses.filter((a) => policy.allows(hostname, a.address));
      if (allowed.length === 0) {
        const refused: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to ${addresses.map((a) => a.address).join(", ")}, ${policy.refusal()}`,
        );
        refused.code = "EHOSTNOTALLOWED";
        return callback(refused, []);
      }
      if (options.all) return callback(null, allowed);
      const first = allowed[0]!;
      callback(null, first.address, first.family);
    });
  };
}
