import { homedir } from "node:os";
import { resolve } from "node:path";
import { loadConfig } from "../config/load.js";

import { nameMeant } from "../contract/did-you-mean.js";
import { ConfigSchema } from "../sources/kinds.js";
import type { BrokerAddress } from "./client-target.js";
import { CLIENT_TARGETS } from "./clients.js";
import { planConnection, writeConnection } from "./connection.js";
import { selfCommand } from "./self-command.js";

export interface ConnectOptions {
  readonly url: string;
  readonly name: string;
  readonly tokenEnv?: string | undefined;
  readonly token?: string | undefined;
  readonly file?: string | undefined;
  readonly write?: boolean | undefined;
  /** A client that starts its servers starts the demo (`mcp-broker demo --stdio`). */
  readonly demo?: boolean | undefined;
}

/**
 * `mcp-broker connect CLIENT [CONFIG]`: what the client needs to reach the
 * broker, printed, or merged into its file with `write`. The token is sent
 * where the config asks for tokens or one is named; `script` is this
 * program, which a stdio client starts with the config (or as the demo).
 */
export async function connectClient(
  id: string,
  configFile: string | undefined,
  opts: ConnectOptions,
  script: string,
): Promise<void> {
  const client = CLIENT_TARGETS.find((c) => c.id === id);
  if (!client) {
    const ids = CLIENT_TARGETS.map((c) => c.id);
    throw new Error(`no client "${id}"${nameMeant(id, ids)}; the clients are ${ids.join(", ")}`);
  }
  const config = configFile === undefined ? undefined : await loadConfig(configFile, ConfigSchema);
  const token =
    opts.token !== undefined
      ? { literal: opts.token }
      : opts.tokenEnv !== undefined || config?.auth !== undefined
        ? { env: opts.tokenEnv ?? "MCP_BROKER_TOKEN" }
        : undefined;
  if (opts.demo && configFile !== undefined)
    throw new Error("give a config file or --demo, not both: --demo starts the demo's own");
  const self = selfCommand(script);
  const served = opts.demo
    ? ["demo", "--stdio"]
    : configFile === undefined
      ? undefined
      : ["stdio", resolve(configFile)];
  const broker: BrokerAddress = {
    name: opts.name,
    url: opts.url,
    ...(served && { stdio: { command: self.command, args: [...self.args, ...served] } }),
    ...(token ? { token } : {}),
  };
  const file =
    opts.file ??
    client.file({ home: homedir(), project: process.cwd(), platform: process.platform });
  const connection = await planConnection(client, broker, file);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  if (!opts.write) {
    say(`${client.title}: add this to ${file} (or run again with --write):`);
    process.stdout.write(connection.snippet);
  } else {
    const backup = await writeConnection(connection);
    say(`${client.title}: wrote ${file}${backup ? ` (what was there is in ${backup})` : ""}`);
  }
  if (token && "env" in token && !client.promptsForToken)
    say(`Set ${token.env} to the token in the environment ${client.title} starts from.`);
  if (token && "literal" in token)
    say(`The token is written in ${file} as it is: keep that file private.`);
  for (const note of connection.notes) say(note);
}
