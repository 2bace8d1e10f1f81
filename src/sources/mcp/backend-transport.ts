import type { Transport } from "@modelcontextprotocol/client";

/** One connection attempt to a backend: what `McpSource` needs of each backend kind. */
export interface BackendConnection {
  readonly transport: Transport;
  /** Words for error messages: the program or the URL, never what may hold a secret. */
  readonly describe: string;
  /** The backend's last words (stdio: its stderr), for the log when it fails or exits. */
  lastWords(): string[];
  /** The process id, where there is one. */
  pid?(): number | null;
  /** Whether the process started and has since ended by itself, where there is one. */
  exited?(): boolean;
  /** Which of its sandbox's limits ended it, where one did. */
  whyEnded?(): string | undefined;
}

export type ConnectBackend = () => BackendConnection;
