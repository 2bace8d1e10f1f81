import { createInterface } from "node:readline/promises";
import { addToConfig } from "./add-to-config.js";
import { installBundle } from "./mcpb-bundle.js";
import { RegistryApi } from "./registry-api.js";
import { MissingInputs, RUNNABLE, serverNode } from "./server-node.js";

export interface AddOptions {
  readonly registry: string;
  readonly path?: string | undefined;
  readonly env?: readonly string[] | undefined;
  readonly arg?: readonly string[] | undefined;
  readonly cache: string;
}

/**
 * `mcp-broker add NAME[@VERSION] CONFIG`: the registry's server added to
 * the config as a source, its package, bundle or remote; what the broker's
 * environment must then hold is said on stderr.
 */
export async function addServer(spec: string, configFile: string, opts: AddOptions): Promise<void> {
  const at = spec.lastIndexOf("@");
  const [name, version] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, "latest"];
  const pairs = (list: readonly string[] = []) =>
    Object.fromEntries(list.map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]));
  const { server } = await new RegistryApi(opts.registry).server(name, version);
  const given = { env: pairs(opts.env), args: pairs(opts.arg) };
  // A bundle is the last choice: downloaded and unpacked only when nothing else runs it.
  const runnable = server.packages?.some(
    (p) => p.transport.type === "stdio" && RUNNABLE.has(p.registryType),
  );
  const mcpb = server.packages?.find((p) => p.registryType === "mcpb");
  const bundle = !runnable && mcpb ? await installBundle(mcpb, opts.cache, given.args) : undefined;
  let added;
  try {
    added = serverNode(server, given, { path: opts.path, bundle });
  } catch (err) {
    // On a terminal, a person is asked for what is missing; elsewhere the error says what to give.
    if (!(err instanceof MissingInputs) || !process.stdin.isTTY) throw err;
    const asked = await askFor(err.names);
    added = serverNode(
      server,
      { ...given, args: { ...given.args, ...asked } },
      { path: opts.path, bundle },
    );
  }
  const backup = await addToConfig(configFile, added.node as { path: string });
  const say = (line: string) => process.stderr.write(`${line}\n`);
  process.stdout.write(JSON.stringify(added.node, null, 2) + "\n");
  say(
    `added ${server.name}@${server.version ?? version} to ${configFile} (what was there is in ${backup})`,
  );
  for (const note of added.notes) say(note);
  for (const v of added.variables)
    say(
      `set ${v.name}${v.secret ? " (a secret)" : ""} in the broker's environment${v.description ? `: ${v.description}` : ""}`,
    );
}

/** Asks a person on the terminal for each value, one line each. */
async function askFor(names: readonly string[]): Promise<Record<string, string>> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answers: Record<string, string> = {};
    for (const name of names) answers[name] = await terminal.question(`${name}: `);
    return answers;
  } finally {
    terminal.close();
  }
}
