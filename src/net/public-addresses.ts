import ipaddr from "ipaddr.js";
import type { AddressPolicy } from "./address-policy.js";

/**
 * Public unicast addresses only: no loopback, private, link-local, unique
 * local, carrier-grade NAT, multicast, reserved or unspecified address, in
 * IPv4 or IPv6 (an IPv4-mapped IPv6 address counts as the IPv4 it holds).
 * For fetching what a caller names (a document URL): the broker's own network
 * stays out of reach.
 */
export class PublicAddresses implements AddressPolicy {
  constructor(private readonly setting: string) {}

  allows(_host: string, address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    return ipaddr.process(address).range() === "unicast";
  }

  refusal(): string {
    return `a loopback, private or link-local address, which is not fetched (${this.setting} allows it)`;
  }
}
