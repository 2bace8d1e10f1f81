import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import { serve as listen, type ServerType } from "@hono/node-server";
import { credentialsOf } from "../auth/credentials.js";
import { Broker } from "../broker/broker.js";
import type { Logger } from "../contract/log.js";
import { ConfigError } from "../config/errors.js";
import { loadConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { createHttpApp } from "./http-app.js";
import { baseUrl } from "./listen-banner.js";
import { isEveryInterface, urlHost } from "./listen-address.js";
import { DEFAULT_SESSION_LIMITS } from "../frontends/mcp/index.js";
import { ConfigSchema } from "../sources/kinds.js";
import type { HostGuardOptions } from "../frontends/http/host-guard/index.js";

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly configFile: string;
  readonly secret?: string | undefined;
  readonly reload?: boolean;
  readonly ignoreBroken?: boolean;
  readonly log: Logger;
  /** What the caller changes in each config loaded, at the start and at each reload. */
  readonly configure?: (config: Config, log: Logger) => Config;
  /** Ends the start when aborted (see BrokerOptions.signal). */
  readonly signal?: AbortSignal;
}

export interface RunningServer {
  readonly broker: Broker;
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  /** Whether callers need a token (as the config in force says). */
  authRequired(): boolean;
  close(): Promise<void>;
}

/** Loads the config, starts the sources and serves HTTP until closed. */
export async function serveHttp(options: ServeOptions): Promise<RunningServer> {
  const { log } = options;
  const warn = (message: string) => log.warn(message);
  const configure = options.configure ?? ((loaded: Config) => loaded);
  let config = configure(await loadConfig(options.configFile, ConfigSchema, { warn }), log);
  checkResourceKnown(options.host, config, options.configFile);
  // HTTP is answered while the sources start: the tree's nodes at once, each
  // source's tools as it comes up. The start fails as before if one cannot.
  const listening = Promise.withResolvers<void>();
  const { broker, ready } = await Broker.open(config, {
    log,
    ignoreBroken: options.ignoreBroken,
    signal: options.signal,
    startAfter: listening.promise,
  });
  let credentials = credentialsOf(config.auth, options.secret);
  const { app, closeSessions } = createHttpApp({
    broker,
    log,
    credentials: () => credentials,
    hosts: allowedHosts(options.host, config, log),
    stateless: config.http?.stateless === true,
    resumable: config.http?.resumable === true,
    sessions: {
      max: config.sessions?.max ?? DEFAULT_SESSION_LIMITS.max,
      // Without tokens every caller is one principal: a share of its own would only shrink max.
      maxPerPrincipal:
        config.sessions?.max_per_principal ??
        (credentials.required ? undefined : (config.sessions?.max ?? DEFAULT_SESSION_LIMITS.max)),
      idleTimeoutMs:
        (config.sessions?.idle_timeout_s ?? DEFAULT_SESSION_LIMITS.idleTimeoutMs / 1000) * 1000,
    },
    expose: () => config.expose ?? "meta",
  });
  let server: ServerType;
  const port = await new Promise<number>((resolve, reject) => {
    server = listen({ fetch: app.fetch, hostname: options.host, port: options.port }, (info) =>
      resolve(info.port),
    );
    server.once("error", reject);
  }).catch(async (err: NodeJS.ErrnoException) => {
    listening.reject(err);
    await broker.close();
    await ready.catch(() => undefined);
    throw new Error(
      `cannot listen on ${options.host}:${options.port}: ${err.code === "EADDRINUSE" ? "the address is in use" : err.message}`,
    );
  });
  listening.resolve();
  log.debug({ port }, "answering HTTP while the sources start");
  await ready.catch(async (err: unknown) => {
    await closeSessions();
    // Whoever connected while the start failed is let go at once.
    if ("closeAllConnections" in server) server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  });
  log.info(
    {
      host: options.host,
      port,
      console: `${baseUrl(options.host, port)}/`,
      tools: broker.tree().tools().length,
      auth: credentials.required ? "on" : "off",
      tokens: credentials.tokens.size,
      ...(credentials.oauth ? { oauth_issuer: credentials.oauth.settings.issuer } : {}),
    },
    "listening",
  );

  const watcher = options.reload
    ? watchConfig(options.configFile, log, async () => {
        const next = configure(await loadConfig(options.configFile, ConfigSchema, { warn }), log);
        checkResourceKnown(options.host, next, options.configFile);
        await broker.reload(next);
        config = next;
        credentials = credentialsOf(next.auth, options.secret, credentials);
      })
    : undefined;

  return {
    broker,
    port,
    authRequired: () => credentials.required,
    async close() {
      watcher?.close();
      await closeSessions();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await broker.close();
    },
  };
}

/**
 * Who may address the broker: configured names, else loopback names and the
 * address it listens on. Listening on every interface without a list, the
 * host check is off (the names it is reached by are not known here).
 */
function allowedHosts(listen: string, config: Config, log: Logger): HostGuardOptions {
  const configured = config.http?.allowed_hosts;
  const origins = config.http?.allowed_origins;
  const wildcard = isEveryInterface(listen);
  if (configured === undefined && wildcard) {
    log.warn(
      "listening on every interface: set http.allowed_hosts in the config to check the Host header",
    );
  }
  const own = urlHost(listen);
  return {
    allowedHosts:
      configured ?? (wildcard ? "any" : [...new Set(["localhost", "127.0.0.1", "[::1]", own])]),
    ...(origins === undefined ? {} : { allowedOrigins: origins }),
  };
}

/**
 * Refuses an OAuth config whose resource URL would come from an unchecked
 * `Host` header: on every interface without `http.allowed_hosts`, anyone
 * could make the broker's metadata name a host of theirs, and clients would
 * ask for tokens for it.
 */
function checkResourceKnown(listen: string, config: Config, file: string): void {
  const oauth = config.auth?.oauth;
  if (oauth === undefined || oauth.resource !== undefined) return;
  if (config.http?.allowed_hosts !== undefined || !isEveryInterface(listen)) return;
  throw new ConfigError(file, [
    `$.auth.oauth.resource: the broker listens on every interface (${listen}) without http.allowed_hosts, so its public URL cannot be told from a request's Host header; set auth.oauth.resource to it (https://broker.example.com), or list the host names in http.allowed_hosts`,
  ]);
}

/** Calls `onChange` once edits to the file settle; a failed reload keeps the running config. */
function watchConfig(file: string, log: Logger, onChange: () => Promise<void>): FSWatcher {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  // Watching the folder catches editors that replace the file instead of writing it.
  return watch(dirname(file), (_event, name) => {
    if (name !== basename(file)) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(() =>
        onChange().catch((err: Error) =>
          log.error(
            { err: err.message },
            "config reload failed; the running config stays in force",
          ),
        ),
      );
    }, 150);
  });
}

export type { Config };
