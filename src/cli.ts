#!/usr/bin/env node
import { Command, Option } from "commander";
import { createToken } from "./auth/create-token.js";
import { Broker } from "./broker/broker.js";
import { pinsCommand } from "./app/pins-command.js";
import { createLogger, LOG_LEVELS, type Logger } from "./contract/log.js";
import { listenBanner } from "./app/listen-banner.js";
import { packageVersion } from "./contract/version.js";
import { cacheFolder } from "./contract/cache-folder.js";
import { SoleClient } from "./contract/sole-client.js";
import { ConfigError } from "./config/errors.js";
import { loadConfig } from "./config/load.js";
import { CLIENT_TARGETS } from "./connect/clients.js";
import { connectClient, type ConnectOptions } from "./connect/connect-command.js";
import { addServer, type AddOptions } from "./mcp-registry/add-command.js";
import { OFFICIAL_REGISTRY, RegistryApi } from "./mcp-registry/registry-api.js";
import { importClientConfig, writeNewFile } from "./config/import-client-config.js";
import { skeletonWithRegistry } from "./broker/registry-tree.js";
import { ConfigSchema } from "./sources/kinds.js";
import { serveMcpStdio } from "./frontends/mcp/index.js";
import { parseListenAddress } from "./app/listen-address.js";
import { serveHttp, type ServeOptions as HttpServeOptions } from "./app/serve.js";
import { prepareDemo } from "./app/demo.js";
import { startTelemetry } from "./telemetry/start-telemetry.js";
import { dumpTree } from "./tree/dump.js";
import { buildComponent } from "./sources/wasm/build-component.js";

const program = new Command("mcp-broker")
  .description("One MCP endpoint in front of many MCP servers, as a navigable tree of tools.")
  .version(packageVersion)
  .addHelpText(
    "after",
    `
Examples:
  mcp-broker demo                  the demo tree, its console on http://127.0.0.1:8100/
  mcp-broker broker.json           serve a config on 127.0.0.1:8100 (MCP at /mcp)
  mcp-broker stdio broker.json     the same over stdin/stdout, for a desktop client
  mcp-broker import claude_desktop_config.json --out broker.json
                                   a config from the servers a client already has`,
  );

const logLevel = () =>
  new Option("--log-level <level>", "log level (logs go to stderr)")
    .choices(LOG_LEVELS)
    .default("info");
const ignoreBroken = () =>
  new Option(
    "--ignore-broken-tool",
    "leave out, with a warning, a source that fails to start or a tool that cannot be mounted, instead of refusing to start",
  );

/** Where `serve CONFIG` listens when no address is given. */
const DEFAULT_LISTEN = "127.0.0.1:8100";

program
  .command("serve", { isDefault: true })
  .description(
    "serve the meta API (POST /meta_search, /meta_tree, /meta_desc, /meta_call, /meta_run), MCP at /mcp, JSON-RPC at /rpc, the console at / and GET /healthz",
  )
  .usage("[options] [HOST:PORT] <config> [secret]")
  .argument(
    "<listen-or-config>",
    `HOST:PORT to listen on, such as 127.0.0.1:8100; or, alone, the config file (then ${DEFAULT_LISTEN})`,
  )
  .argument(
    "[config]",
    "the config file: the broker's own, or a client's list of servers (mcpServers, VS Code's servers, Codex's config.toml), JSON, JSONC or TOML",
  )
  .argument(
    "[secret]",
    "demand `Authorization: Bearer SECRET` on every endpoint but /healthz (or set MCP_BROKER_SECRET)",
  )
  .option("--reload", "watch the config file and apply changes without a restart")
  .addOption(ignoreBroken())
  .addOption(logLevel())
  .option("--dump-tree", "print the tree and exit")
  .action(
    async (
      first: string,
      second: string | undefined,
      secret: string | undefined,
      opts: ServeOptions & { dumpTree?: boolean },
    ) => {
      // `serve CONFIG` alone listens on the default address; otherwise the address comes first.
      const [listen, configFile] = second === undefined ? [DEFAULT_LISTEN, first] : [first, second];
      if (opts.dumpTree)
        return printTree(configFile, createLogger(opts.logLevel), opts.ignoreBrokenTool);
      await serve(listen, configFile, secret ?? process.env.MCP_BROKER_SECRET, opts);
    },
  );

program
  .command("demo")
  .description(
    "serve the demo tree (three MCP servers, a CMS and the built-in tools) from this package, wherever it is installed",
  )
  .argument("[listen]", "HOST:PORT to listen on", DEFAULT_LISTEN)
  .option("--stdio", "serve it over stdin/stdout instead, for clients that start their servers")
  .addOption(logLevel())
  .action(async (listen: string, opts: ServeOptions & { stdio?: boolean }) => {
    const demo = await prepareDemo();
    // A demo server that cannot start here is left out, saying why.
    const options = { ...opts, ignoreBrokenTool: true, configure: demo.configure };
    if (opts.stdio) return serveStdio(demo.configFile, options);
    await serve(listen, demo.configFile, process.env.MCP_BROKER_SECRET, options);
  });

interface ServeOptions {
  reload?: boolean;
  ignoreBrokenTool?: boolean;
  logLevel: string;
  configure?: HttpServeOptions["configure"];
}

/** Serves a config over HTTP until a signal ends it. */
async function serve(
  listen: string,
  configFile: string,
  secret: string | undefined,
  opts: ServeOptions,
): Promise<void> {
  const log = createLogger(opts.logLevel);
  const { host, port } = parseListenAddress(listen);
  const shutdown = onShutdown(log);
  const telemetry = await startTelemetry(log);
  const running = await serveHttp({
    host,
    port,
    configFile,
    secret,
    reload: opts.reload,
    ignoreBroken: opts.ignoreBrokenTool,
    log,
    configure: opts.configure,
    signal: shutdown.signal,
  });
  // On a terminal, where to go next; elsewhere the "listening" log line says it.
  if (process.stderr.isTTY && !shutdown.signal.aborted)
    process.stderr.write(listenBanner(host, running.port, running.authRequired()));
  shutdown.closeWith(async () => {
    await running.close();
    await telemetry?.();
  });
}

program
  .command("import")
  .description(
    "write the broker config equivalent to a client's list of servers (Claude Desktop, Claude Code, Cursor, Windsurf, Cline, Gemini CLI, VS Code, Codex CLI)",
  )
  .argument(
    "<file>",
    "the client's file, such as claude_desktop_config.json or ~/.codex/config.toml",
  )
  .option("--out <file>", "write it to this new file instead of stdout")
  .action(async (file: string, opts: { out?: string }) => {
    const { json, warnings } = await importClientConfig(file);
    for (const warning of warnings) process.stderr.write(`mcp-broker: ${file}: ${warning}\n`);
    if (opts.out === undefined) return void process.stdout.write(json);
    await writeNewFile(opts.out, json);
    process.stderr.write(`mcp-broker: wrote ${opts.out}\n`);
  });

program
  .command("connect")
  .description(
    `print (or, with --write, merge into the client's own file) what a client needs to reach this broker: ${CLIENT_TARGETS.map((c) => c.id).join(", ")}`,
  )
  .argument("<client>", CLIENT_TARGETS.map((c) => c.id).join(", "))
  .argument(
    "[config]",
    "the broker's config file: for clients that start it over stdio, and to see whether it asks for tokens",
  )
  .option("--url <url>", "the broker's MCP endpoint", `http://${DEFAULT_LISTEN}/mcp`)
  .option("--name <name>", "the broker's name in the client's list", "mcp-broker")
  .option(
    "--token-env <name>",
    "send the token held by this environment variable (default MCP_BROKER_TOKEN where the config asks for tokens)",
  )
  .option("--token <token>", "send this token, written into the client's file as it is")
  .option("--file <file>", "the client's file, where it is not in the usual place")
  .option("--write", "merge it into the client's file, keeping a backup of what was there")
  .option("--demo", "a client that starts its servers starts the demo (mcp-broker demo --stdio)")
  .action((id: string, configFile: string | undefined, opts: ConnectOptions) =>
    connectClient(id, configFile, opts, process.argv[1]!),
  );

const registryOption = () =>
  new Option("--registry <url>", "the MCP Registry to read").default(
    process.env.MCP_BROKER_REGISTRY_URL ?? OFFICIAL_REGISTRY,
  );

program
  .command("registry")
  .description("the MCP Registry")
  .command("search")
  .description("servers of the MCP Registry whose name holds TEXT, latest versions")
  .argument("<text>")
  .addOption(registryOption())
  .action(async (text: string, opts: { registry: string }) => {
    const found = await new RegistryApi(opts.registry).search(text);
    for (const { server } of found)
      process.stdout.write(
        `${server.name}@${server.version ?? "?"}  ${server.description ?? ""}\n`,
      );
    if (found.length === 0)
      process.stderr.write(`no server of ${opts.registry} is named like "${text}"\n`);
  });

program
  .command("add")
  .description(
    "add a server of the MCP Registry to a config, as a source: its package run over stdio, or its remote",
  )
  .argument("<name>", "the server's name, such as io.github.user/weather, or name@version")
  .argument("<config>", "the broker's config file to add it to (a backup is kept)")
  .addOption(registryOption())
  .option("--path <path>", "the node to mount it at (default: the last part of its name)")
  .option(
    "--env <NAME=VALUE...>",
    "a value for one of its environment variables (secrets are never written: set them in the environment)",
  )
  .option("--arg <NAME=VALUE...>", "a value for one of its arguments or URL variables")
  .option("--cache <folder>", "where MCPB bundles are unpacked", cacheFolder("mcpb"))
  .action((spec: string, configFile: string, opts: AddOptions) =>
    addServer(spec, configFile, opts),
  );

program
  .command("stdio")
  .description("serve MCP over stdin/stdout, for desktop clients")
  .argument("<config>", "the JSON config file")
  .option(
    "--server <name>",
    "serve one source as itself (its own tools, resources, prompts) instead of the tree",
  )
  .addOption(ignoreBroken())
  .addOption(logLevel())
  .action((configFile: string, opts: StdioOptions) => serveStdio(configFile, opts));

interface StdioOptions {
  server?: string;
  ignoreBrokenTool?: boolean;
  logLevel: string;
  configure?: HttpServeOptions["configure"];
}

/** Serves a config over stdin/stdout until the client goes or a signal ends it. */
async function serveStdio(configFile: string, opts: StdioOptions): Promise<void> {
  const log = createLogger(opts.logLevel);
  const shutdown = onShutdown(log);
  const telemetry = await startTelemetry(log);
  const loaded = await loadConfig(configFile, ConfigSchema, {
    warn: (message) => log.warn(message),
  });
  const config = opts.configure ? opts.configure(loaded, log) : loaded;
  // One client, the one on stdin: what backends ask outside calls is for it.
  const soleClient = new SoleClient();
  const broker = await Broker.start(config, {
    log,
    ignoreBroken: opts.ignoreBrokenTool,
    signal: shutdown.signal,
    soleClient,
  });
  try {
    if (opts.server !== undefined) broker.source(opts.server);
  } catch (err) {
    await broker.close();
    throw err;
  }
  const stdio = serveMcpStdio({
    broker,
    log,
    expose: config.expose ?? "meta",
    server: opts.server,
    soleClient,
  });
  shutdown.closeWith(async () => {
    await stdio.close();
    await broker.close();
    await telemetry?.();
  });
  // A client that has gone takes its broker with it: nothing else would end it.
  void stdio.gone.then(() => shutdown.stop("the stdio client has gone"));
}

program
  .command("dump-tree")
  .description("start the sources, print the tree and exit")
  .argument("<config>", "the JSON config file")
  .addOption(ignoreBroken())
  .addOption(logLevel().default("warn"))
  .action((configFile: string, opts: { ignoreBrokenTool?: boolean; logLevel: string }) =>
    printTree(configFile, createLogger(opts.logLevel), opts.ignoreBrokenTool),
  );

const pins = program
  .command("pins")
  .description("tool definitions pinned against silent change (docs/PINNING.md)");
pins
  .command("list")
  .description("start the sources and print each tool whose definition is not the one pinned")
  .argument("<config>", "the JSON config file")
  .addOption(logLevel().default("warn"))
  .action(async (configFile: string, opts: { logLevel: string }) => {
    process.stdout.write(await pinsCommand(configFile, createLogger(opts.logLevel)));
  });
pins
  .command("approve")
  .description("pin the definition a tool offers now, as an admin would approve it")
  .argument("<config>", "the JSON config file")
  .argument("<path>", "the tool's path, as pins list names it")
  .addOption(logLevel().default("warn"))
  .action(async (configFile: string, path: string, opts: { logLevel: string }) => {
    process.stdout.write(await pinsCommand(configFile, createLogger(opts.logLevel), path));
  });

program
  .command("token")
  .description("manage access tokens")
  .command("create")
  .description(
    "print a new random token and the config entry that accepts it (only its SHA-256 is kept)",
  )
  .requiredOption("--scopes <scopes...>", 'scopes such as "tree:/**" "describe:/**" "call:/cms/**"')
  .option("--id <id>", "the token's id in logs and rate limits", "token")
  .action((opts: { scopes: string[]; id: string }) => {
    const entry = createToken(opts.id, opts.scopes);
    process.stdout.write(
      `token:  ${entry.token}\n` +
        `config: ${JSON.stringify({ id: entry.id, sha256: entry.sha256, scopes: entry.scopes })}\n` +
        "Add the config line to auth.tokens; give the token to the client. It is not stored anywhere.\n",
    );
  });

program
  .command("emcp")
  .description("the Evolution CMS (eMCP) toolset")
  .command("demo-db")
  .description("write a demo Evolution CMS 3 database (deterministic for a given --docs)")
  .argument("<database>", "sqlite:PATH (or a bare PATH), mysql://… or postgres://…")
  .option("--docs <n>", "how many documents", "500")
  .option("--prefix <prefix>", "the table prefix", "evo_")
  .action(async (database: string, opts: { docs: string; prefix: string }) => {
    const spec = /^(sqlite:|mysql:|postgres(ql)?:)/.test(database)
      ? database
      : `sqlite:${database}`;
    const { generateDemo } = await import("./toolsets/emcp/demo/generate.js");
    const { openDatabase } = await import("./toolsets/emcp/open-database.js");
    const opened = openDatabase(spec, { prefix: opts.prefix });
    try {
      await generateDemo(opened, opts.prefix, Number(opts.docs));
    } finally {
      await opened.db.destroy();
    }
    process.stdout.write(`${database}: ${opts.docs} documents written\n`);
  });

program
  .command("wasm")
  .description("WebAssembly tool components")
  .command("build")
  .description("build a component exporting wasix:mcp/router@25.3.26 from a JavaScript module")
  .argument("<router>", "a JavaScript module that exports `router` (see examples/wasm/)")
  .requiredOption("--out <file>", "where to write the .wasm component")
  .action(async (router: string, opts: { out: string }) => {
    const built = await buildComponent(router, opts.out);
    process.stdout.write(
      `${opts.out}: ${(built.bytes / 1024 / 1024).toFixed(1)} MiB component built in ${(built.ms / 1000).toFixed(1)} s\n`,
    );
  });

program
  .command("check-config")
  .description("validate a config file without starting anything")
  .argument("<config>", "the JSON config file")
  .action(async (configFile: string) => {
    const warn = (message: string) => process.stderr.write(`mcp-broker: ${message}\n`);
    const skeleton = skeletonWithRegistry(
      await loadConfig(configFile, ConfigSchema, { warn }),
      [],
      configFile,
    );
    process.stdout.write(
      `${configFile}: valid (${skeleton.nodes.size} nodes, ${skeleton.mounts.length} sources)\n`,
    );
  });

async function printTree(configFile: string, log: Logger, ignoreBroken?: boolean): Promise<void> {
  const config = await loadConfig(configFile, ConfigSchema, {
    warn: (message) => log.warn(message),
  });
  const broker = await Broker.start(config, { log, ignoreBroken });
  try {
    process.stdout.write(dumpTree(broker.tree()));
  } finally {
    await broker.close();
  }
}

/**
 * SIGINT and SIGTERM, from the start on: while the broker starts, a signal
 * aborts `signal`, which ends the start (its sources' programs with it);
 * once `closeWith` has the way to close what runs, a signal closes it and
 * exits, and so does `stop` (a stdio client that has gone).
 */
function onShutdown(log: Logger): {
  signal: AbortSignal;
  closeWith(close: () => Promise<void>): void;
  stop(why: string): void;
} {
  const interrupted = new AbortController();
  let close: (() => Promise<void>) | undefined;
  let closing = false;
  const shut = () => {
    if (closing || close === undefined) return;
    closing = true;
    close().then(
      () => process.exit(0),
      (err: Error) => {
        log.error({ err: err.message }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  const handler = (signal: NodeJS.Signals) => {
    log.info({ signal }, "shutting down");
    interrupted.abort(new Error(`start-up interrupted by ${signal}`));
    shut();
  };
  process.once("SIGINT", handler);
  process.once("SIGTERM", handler);
  return {
    signal: interrupted.signal,
    closeWith(closer) {
      close = closer;
      // A signal between the end of the start and now: close at once.
      if (interrupted.signal.aborted) shut();
    },
    stop(why) {
      log.info({ why }, "shutting down");
      shut();
    },
  };
}

// Run bare, the program says what it does rather than which argument its default command lacks.
if (process.argv.length <= 2) {
  program.outputHelp({ error: true });
  process.exit(1);
}

program.parseAsync().catch((err: Error) => {
  process.stderr.write(`mcp-broker: ${err.message}\n`);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
