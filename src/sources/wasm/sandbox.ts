/**
 * What a component may reach, from its config's `permissions`: by default no
 * folder, no environment variable and no network. Each component gets its own
 * filesystem namespace: only the folders granted to it, under the guest paths
 * the config names.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { WasmSourceConfig } from "./config.js";
import type { Sandbox } from "./worker-protocol.js";

export type WasmPermissions = NonNullable<WasmSourceConfig["permissions"]>;

/** The sandbox for `permissions`, or what is wrong with a grant. */
export function sandboxFor(permissions: WasmPermissions | undefined): Sandbox | string {
  const preopens: Record<string, string> = {};
  for (const [guest, host] of Object.entries(permissions?.dirs ?? {})) {
    const folder = resolve(host);
    if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory())
      return `permissions.dirs["${guest}"]: ${folder} is not a folder`;
    preopens[guest] = folder;
  }
  const env: Record<string, string> = {};
  for (const name of permissions?.env ?? []) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { preopens, env, enableNetwork: permissions?.network === true };
}

/**
 * Imports no host here supplies: such a component cannot be instantiated.
 * The shim is loaded only when a component is, not with every broker.
 */
export async function unsuppliedImports(imports: readonly string[]): Promise<string[]> {
  const { WASIShim } = await import("@bytecodealliance/preview2-shim/instantiation");
  const supplied = new Set(Object.keys(new WASIShim().getImportObject()));
  return imports.filter((name) => !supplied.has(name.replace(/@[^@/]*$/, "")));
}

/**
 * Imports the component has but its grants leave empty, such as
 * `wasi:filesystem/preopens` with no folder: worth a line in the log, because
 * its calls to them will be refused.
 */
export function ungrantedImports(imports: readonly string[], sandbox: Sandbox): string[] {
  return imports.filter(
    (name) =>
      (name.startsWith("wasi:filesystem/") && Object.keys(sandbox.preopens).length === 0) ||
      ((name.startsWith("wasi:sockets/") || name.startsWith("wasi:http/outgoing")) &&
        !sandbox.enableNetwork),
  );
}
