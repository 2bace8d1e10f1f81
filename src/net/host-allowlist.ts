import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import ipaddr from "ipaddr.js";
import picomatch from "picomatch";
import type { AddressPolicy } from "./address-policy.js";

/** Loopback only: a registered service runs beside the broker unless the operator says otherwise. */
export const DEFAULT_ALLOWED_HOSTS = ["localhost", "127.0.0.0/8", "::1/128"] as const;

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * Where the broker may send requests to registered services (SSRF guard):
 * host names (globs such as `*.svc.internal`), addresses, networks in CIDR
 * notation, or `*` for anywhere. A name on the list may resolve to anything;
 * any other name is allowed only if every address it resolves to lies in a
 * listed network, checked again when the connection is made (`guardedLookup`).
 */
export class HostAllowlist implements AddressPolicy {
  private readonly any: boolean;
  private readonly names: ((host: string) => boolean)[] = [];
  private readonly networks: Network[] = [];

  constructor(
    readonly entries: readonly string[],
    /** The setting that lists them, named when a host is refused. */
    private readonly setting = "registry.allowed_hosts",
  ) {
    this.any = entries.includes("*");
    for (const entry of entries) {
      if (entry === "*") continue;
      const network = parseNetwork(entry);
      if (network) this.networks.push(network);
      else this.names.push(picomatch(entry.toLowerCase(), { nocase: true }));
    }
  }

  /** The hosts of these URLs alone (an IPv6 address without its brackets). */
  static ofUrls(urls: readonly (string | URL)[], setting: string): HostAllowlist {
    return new HostAllowlist(
      urls.map((url) => new URL(url).hostname.replace(/^\[|\]$/g, "")),
      setting,
    );
  }

  /** Problems with the entries of a config, such as `10.0.0.0/33`. */
  static problems(entries: readonly string[]): string[] {
    return entries
      .filter((e) => /^[\d.:/]+$/.test(e) && parseNetwork(e) === undefined)
      .map((e) => `"${e}" is neither an address nor a network in CIDR notation`);
  }

  /** Whether a connection to `address`, found for `host`, may go ahead. */
  allows(host: string, address: string): boolean {
    return this.any || this.allowsName(host) || this.allowsAddress(address);
  }

  /** Whether `host` may be used whatever it resolves to. */
  allowsName(host: string): boolean {
    const bare = unbracket(host).toLowerCase();
    return this.any || (!ipaddr.isValid(bare) && this.names.some((matches) => matches(bare)));
  }

  allowsAddress(address: string): boolean {
    if (this.any) return true;
    if (!ipaddr.isValid(address)) return false;
    // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is checked as the IPv4 address it is.
    const ip = ipaddr.process(address);
    return this.networks.some(([net, bits]) => ip.kind() === net.kind() && ip.match(net, bits));
  }

  /** Why a URL may not be used, checked now (the connection checks again); undefined: it may. */
  async problemWith(url: URL): Promise<string | undefined> {
    const host = unbracket(url.hostname);
    if (this.allowsName(host)) return undefined;
    if (ipaddr.isValid(host)) {
      return this.allowsAddress(host) ? undefined : `${host} is ${this.refusal()}`;
    }
    const addresses = await new Promise<LookupAddress[] | Error>((resolve) =>
      dnsLookup(host, { all: true }, (err, found) => resolve(err ?? found)),
    );
    if (addresses instanceof Error) return `${host} does not resolve (${addresses.message})`;
    const refused = addresses.filter((a) => !this.allowsAddress(a.address));
    return refused.length === 0
      ? undefined
      : `${host} resolves to ${refused.map((a) => a.address).join(", ")}, ${this.refusal()}`;
  }

  refusal(): string {
    return `outside ${this.setting} (${this.entries.join(", ")}); an operator can add it there`;
  }
}

function parseNetwork(entry: string): Network | undefined {
  try {
    if (entry.includes("/")) return ipaddr.parseCIDR(entry);
    if (!ipaddr.isValid(entry)) return undefined;
    const ip = ipaddr.process(entry);
    return [ip, ip.kind() === "ipv4" ? 32 : 128];
  } catch {
    return undefined;
  }
}

function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
