import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** One connection attempt to a backend: what `McpSource` needs of each backend kind. */
export interface BackendConnection {
  readonly transport: Transport;
  /** Words for error messages: the command line or the URL. */
  readonly describe: string;
  /** The backend's last words (stdio: its stderr), for errors at start and exit. */
  lastWords(): string[];
  /** The process id, where there is one. */
  pid?(): number | null;
}

export type ConnectBackend = () => BackendConnection;
