import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";

/**
 * What reaching the network takes, as the user's shell has it: the proxies,
 * and the certificate authorities to trust (a TLS-inspecting proxy's).
 * Without them, a server started with `npx -y` behind such a proxy hangs
 * while fetching its package, where the same line works from a shell.
 */
const NETWORK = [
  "HTTPS_PROXY",
  "https_proxy",
  "HTTP_PROXY",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
  "ALL_PROXY",
  "all_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
];

/**
 * The environment of an unsandboxed stdio server: the MCP SDK's safe
 * default set (`PATH`, `HOME`, `USER`, `SHELL`, `TERM`, `LOGNAME`), the
 * network settings above where the broker has them, then the source's own
 * `env`. Nothing else of the broker's: it often holds secrets a server has
 * no business seeing.
 */
export function childEnvironment(own: Record<string, string> | undefined): Record<string, string> {
  const network: Record<string, string> = {};
  for (const name of NETWORK) {
    const value = process.env[name];
    if (value !== undefined) network[name] = value;
  }
  return { ...getDefaultEnvironment(), ...network, ...own };
}
