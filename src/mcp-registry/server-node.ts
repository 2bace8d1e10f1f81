import { literalText } from "../config/env.js";
import type { InstalledBundle } from "./mcpb-bundle.js";
import type {
  Argument,
  InputWithVariables,
  KeyValueInput,
  Package,
  ServerDetail,
} from "./server-json.js";

/** Values the user gave for a server's inputs: environment variables, and arguments and URL variables by name. */
export interface GivenInputs {
  readonly env: Readonly<Record<string, string>>;
  readonly args: Readonly<Record<string, string>>;
}

export interface ServerNode {
  /** The config's node: `{path, summary, source}`. */
  readonly node: Record<string, unknown>;
  /** Environment variables the broker's environment must hold (secrets are never written). */
  readonly variables: readonly { name: string; secret: boolean; description?: string }[];
  readonly notes: readonly string[];
}

/** What a package identifier may be, per registry: never an option, never a shell word. */
const IDENTIFIERS: Readonly<Record<string, RegExp>> = {
  npm: /^(@[a-z0-9~][a-z0-9._~-]*\/)?[a-z0-9~][a-z0-9._~-]*$/,
  pypi: /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
  oci: /^[a-z0-9][a-z0-9._/:@-]*$/,
};
const VERSION = /^[A-Za-z0-9][A-Za-z0-9.+_-]*$/;
/** Required inputs without a value: the arguments to give (or to ask a person for). */
export class MissingInputs extends Error {
  constructor(
    server: string,
    readonly names: readonly string[],
  ) {
    super(
      `${server} needs values for its required inputs: give ${names.map((n) => `--arg ${n}=VALUE`).join(" ")}`,
    );
  }
}

/** The registries whose packages the broker runs itself. */
export const RUNNABLE: ReadonlySet<string> = new Set(Object.keys(IDENTIFIERS));

/**
 * A server of the registry as a node of the broker's config: its npm,
 * PyPI or OCI package run over stdio (`npx`, `uvx`, `docker run`), its
 * arguments and environment from its `server.json`; else its MCPB bundle,
 * when one was installed (mcpb-bundle.ts); else its remote, an `http`
 * source. Values come from what the user gave, then the defaults;
 * a secret is never written, only its `${NAME}`. Throws, saying what to
 * give, when a required input has no value, and refuses a package whose
 * identifier or version could be read as anything but one.
 */
export function serverNode(
  detail: ServerDetail,
  given: GivenInputs,
  options: { path?: string | undefined; bundle?: InstalledBundle | undefined } = {},
): ServerNode {
  const { path, bundle } = options;
  const variables: { name: string; secret: boolean; description?: string }[] = [];
  const notes: string[] = [];
  const missing: string[] = [];
  const value = (input: InputWithVariables, key: string): string | undefined => {
    const own = input.value ?? given.args[key] ?? input.default;
    if (own === undefined) {
      if (input.isRequired) missing.push(key);
      return undefined;
    }
    // "{name}" in a value is its variable's value (the registry's templates).
    return own.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
      const variable = input.variables?.[name];
      const found = given.args[name] ?? variable?.value ?? variable?.default;
      if (found === undefined && variable) missing.push(name);
      return found ?? whole;
    });
  };
  /** Environment variables, or headers whose values come from variables named after them. */
  const environment = (inputs: readonly KeyValueInput[] | undefined): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const input of inputs ?? []) {
      const variable = input.name.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
      // A variable without a value is one for the broker's environment, not a question.
      const chosen = input.isSecret
        ? undefined
        : (given.env[variable] ?? value({ ...input, isRequired: false }, input.name));
      if (chosen !== undefined) env[input.name] = literalText(chosen);
      else if (input.isSecret || input.isRequired) {
        env[input.name] = `\${${variable}}`;
        variables.push({
          name: variable,
          secret: input.isSecret === true,
          ...(input.description ? { description: input.description } : {}),
        });
      }
    }
    return env;
  };
  const argv = (args: readonly Argument[] | undefined): string[] =>
    (args ?? []).flatMap((arg) => {
      const key =
        arg.type === "named" ? (arg.name ?? "").replace(/^-+/, "") : (arg.valueHint ?? "");
      const chosen = value(arg, key);
      if (arg.type === "named") return chosen === undefined ? [] : [arg.name!, literalText(chosen)];
      return chosen === undefined ? [] : [literalText(chosen)];
    });

  const pkg = detail.packages?.find(
    (p) => p.transport.type === "stdio" && p.registryType in IDENTIFIERS,
  );
  let source: Record<string, unknown>;
  if (pkg) {
    source = { backend: "stdio", command: commandOf(pkg, argv), start_timeout_s: 300 };
    const env = environment(pkg.environmentVariables);
    if (Object.keys(env).length > 0) source.env = env;
    notes.push(
      `runs ${pkg.registryType} package ${pkg.identifier}${pkg.version ? `@${pkg.version}` : ""}, fetched on its first start`,
    );
  } else if (bundle) {
    const mcpb = detail.packages?.find((p) => p.registryType === "mcpb");
    const env = { ...bundle.env, ...environment(mcpb?.environmentVariables) };
    source = { backend: "stdio", command: bundle.command.map(literalText), cwd: bundle.folder };
    if (Object.keys(env).length > 0) source.env = env;
    notes.push(`runs the MCPB bundle unpacked in ${bundle.folder}, its SHA-256 checked`);
  } else {
    const remote =
      detail.remotes?.find((r) => r.type === "streamable-http") ??
      detail.remotes?.find((r) => r.type === "sse");
    if (!remote?.url) {
      const kinds = (detail.packages ?? [])
        .map((p) => `${p.registryType} (${p.transport.type})`)
        .join(", ");
      throw new Error(
        `${detail.name} has no package the broker runs (npm, pypi or oci over stdio) nor a remote${kinds ? `: it has ${kinds}` : ""}`,
      );
    }
    if (remote.type === "sse")
      notes.push(
        "its remote speaks the older HTTP+SSE transport: it starts only if it also answers Streamable HTTP there",
      );
    const url = value({ value: remote.url, variables: remote.variables }, "url");
    const headers = environment(remote.headers);
    source = {
      backend: "http",
      url: url && literalText(url),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
    };
  }
  if (missing.length > 0) throw new MissingInputs(detail.name, [...new Set(missing)]);
  const segment =
    (path ?? detail.name.split("/").at(-1) ?? "server")
      .replace(/^\/+/, "")
      .replace(/[^A-Za-z0-9_/-]+/g, "-") || "server";
  return {
    node: {
      path: `/${
        segment
          .split("/")
          .filter((s) => s !== "" && s !== "." && s !== "..")
          .join("/") || "server"
      }`,
      ...(detail.description ? { summary: detail.description } : {}),
      source,
    },
    variables,
    notes,
  };
}

function commandOf(
  pkg: Package,
  argv: (args: readonly Argument[] | undefined) => string[],
): string[] {
  if (!IDENTIFIERS[pkg.registryType]!.test(pkg.identifier))
    throw new Error(`refused: "${pkg.identifier}" is not a ${pkg.registryType} package name`);
  if (pkg.version !== undefined && !VERSION.test(pkg.version))
    throw new Error(`refused: "${pkg.version}" is not a package version`);
  const runtime = argv(pkg.runtimeArguments);
  const own = argv(pkg.packageArguments);
  switch (pkg.registryType) {
    case "npm":
      return [
        "npx",
        ...(runtime.length > 0 ? runtime : ["-y"]),
        pkg.version ? `${pkg.identifier}@${pkg.version}` : pkg.identifier,
        ...own,
      ];
    case "pypi":
      return [
        "uvx",
        ...runtime,
        pkg.version ? `${pkg.identifier}==${pkg.version}` : pkg.identifier,
        ...own,
      ];
    default: {
      const env = (pkg.environmentVariables ?? []).flatMap((e) => ["-e", e.name]);
      const tagged =
        pkg.version && !/[:@]/.test(pkg.identifier.split("/").at(-1)!)
          ? `${pkg.identifier}:${pkg.version}`
          : pkg.identifier;
      return ["docker", "run", "-i", "--rm", ...runtime, ...env, tagged, ...own];
    }
  }
}
