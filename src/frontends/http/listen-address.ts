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
