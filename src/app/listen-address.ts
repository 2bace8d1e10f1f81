/** `HOST:PORT`, `[IPv6]:PORT` or `PORT` (on 127.0.0.1) as host and port. */
export function parseListenAddress(text: string): { host: string; port: number } {
  const match =
    /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(text) ??
    (/^\d+$/.test(text) ? [text, undefined, "127.0.0.1", text] : null);
  const port = match ? Number(match[3]) : NaN;
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(
      `"${text}" is not a listen address; write HOST:PORT such as 127.0.0.1:8100, [::1]:8100 or 0.0.0.0:8100`,
    );
  }
  return { host: match[1] ?? (match[2] || "127.0.0.1"), port };
}

/** Whether a listen host means every interface (`0.0.0.0`, `::`, or none given). */
export function isEveryInterface(host: string): boolean {
  return host === "" || host === "0.0.0.0" || host === "::";
}

/** A listen host as a URL or a Host header writes it: an IPv6 address in brackets. */
export function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
