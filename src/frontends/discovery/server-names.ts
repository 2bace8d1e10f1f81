import ipaddr from "ipaddr.js";

/**
 * The reverse-DNS namespace of the broker's server names, from the host it
 * was reached at (`broker.example.com` → `com.example.broker`); an address
 * or a single label (`localhost`) has none, and gets `local.mcp-broker`.
 */
export function namespaceOf(hostname: string): string {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (ipaddr.isValid(host) || !host.includes(".") || !/^[a-z0-9.-]+$/.test(host))
    return "local.mcp-broker";
  return host.split(".").reverse().join(".");
}

/** A description within the registry's 100 characters. */
export function shortDescription(text: string | undefined, fallback: string): string {
  const one = (text ?? "").replace(/\s+/g, " ").trim() || fallback;
  return one.length <= 100 ? one : `${one.slice(0, 99)}…`;
}
