import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Config } from "../config/schema.js";
import type { Logger } from "../contract/log.js";
import type { SoleClient } from "../contract/sole-client.js";
import type { SourceEvent } from "../contract/router.js";
import { DEFAULT_ALLOWED_HOSTS } from "../net/host-allowlist.js";
import { ToolRegistry } from "../registry/tool-registry.js";
import { openStore } from "../state/open-store.js";
import { sharedKey } from "../state/shared-key.js";
import { isShared, type StateStore } from "../state/store.js";
import { EmbeddingsClient } from "../tool-search/embeddings-client.js";
import { SemanticIndex } from "../tool-search/semantic-index.js";
import { Thesaurus } from "../tool-search/thesaurus.js";
import { ToolSearch } from "../tool-search/tool-search.js";
import { createBuiltinToolsets } from "../toolsets/kinds.js";
import { ScriptSandbox } from "../isolation/script-sandbox/script-sandbox.js";
import { AuditSink } from "./audit-sink.js";
import { PinBook } from "../pinning/pin-book.js";
import { openPinStore, type PinStore } from "../pinning/pin-store.js";
import { suspiciousText } from "../pinning/suspicious-text.js";
import { sandboxPoolOf } from "./run-settings.js";
import type { BrokerMetrics } from "./metrics.js";
import { SourcePool } from "./source-pool.js";

/**
 * What a Broker is made of, opened at its start from the config: the state
 * store (and the key instances sharing it seal input rounds with), the tool
 * registry kept in it, the pool of sources, the audit sink and the index of
 * `meta_search`. The broker closes them when it closes.
 */
export interface BrokerParts {
  readonly store: StateStore;
  /** This instance among those sharing the store: named in the tasks it runs. */
  readonly instance: string;
  readonly inputBridgeKey: Uint8Array | undefined;
  readonly toolRegistry: ToolRegistry;
  readonly sources: SourcePool;
  readonly auditSink: AuditSink;
  readonly toolSearch: ToolSearch;
  /** Where `meta_run` scripts run. */
  readonly scripts: ScriptSandbox;
  /** Tool definitions pinned against silent change, and where they are kept. */
  readonly pins: PinBook;
  readonly pinStore: PinStore;
}

/** What the parts tell the broker that owns them. */
export interface PartsEvents {
  /** A source's tools changed (or a definition was approved elsewhere): the tree is due a rebuild. */
  readonly toolsChanged: () => void;
  readonly sourceEvent: (source: string, event: SourceEvent) => void;
  /** The one client the broker serves, for what backends ask outside calls (stdio). */
  readonly soleClient?: SoleClient | undefined;
}

/** Opens the parts in order; what was opened before a failure is closed again. */
export async function openBrokerParts(
  config: Config,
  log: Logger,
  metrics: BrokerMetrics,
  events: PartsEvents,
): Promise<BrokerParts> {
  const store = await openStore(config.state ?? "memory", log);
  try {
    const inputBridgeKey = isShared(store) ? await sharedKey(store, "input-bridge") : undefined;
    const toolRegistry = await ToolRegistry.open({
      store,
      log,
      healthCheckIntervalS: config.registry?.health_check_interval_s ?? 60,
      allowedHosts: config.registry?.allowed_hosts ?? DEFAULT_ALLOWED_HOSTS,
      maxResponseBytes: config.registry?.max_response_bytes ?? 10 * 1024 * 1024,
      syncIntervalMs: 1000,
      builtins: createBuiltinToolsets(config.toolsets, log),
      predefined: config.registry?.predefined ?? true,
    });
    const pinStore = await openPinStore(config.pinning, store, log);
    return {
      pinStore,
      pins: new PinBook(
        pinStore.store,
        config.pinning.mode,
        suspiciousText,
        log,
        events.toolsChanged,
      ),
      store,
      instance: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
      inputBridgeKey,
      toolRegistry,
      sources: new SourcePool(
        log,
        toolRegistry,
        events.toolsChanged,
        events.sourceEvent,
        events.soleClient,
      ),
      auditSink: new AuditSink(log, metrics, config.audit?.file, config.audit?.log),
      toolSearch: createToolSearch(config, store, log),
      scripts: new ScriptSandbox({ ...sandboxPoolOf(config.run), log }),
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** Closes the parts, the sources before the store they may still write to. */
export async function closeBrokerParts(parts: BrokerParts): Promise<void> {
  await parts.scripts.close();
  await parts.toolRegistry.close();
  await parts.sources.close();
  parts.pins.close();
  if (parts.pinStore.own) await parts.pinStore.store.close();
  await parts.store.close();
  await parts.auditSink.close();
}

/** The index behind meta_search, as the config asks for it. */
function createToolSearch(config: Config, store: StateStore, log: Logger): ToolSearch {
  const settings = config.tool_search ?? {};
  const embeddings = settings.embeddings;
  return new ToolSearch({
    log,
    thesaurus: settings.synonyms === false ? undefined : new Thesaurus(),
    semantic:
      embeddings === undefined
        ? undefined
        : new SemanticIndex(
            new EmbeddingsClient({
              url: embeddings.url,
              model: embeddings.model,
              apiKey:
                embeddings.api_key_env === undefined
                  ? undefined
                  : process.env[embeddings.api_key_env],
              timeoutMs: (embeddings.timeout_s ?? 10) * 1000,
            }),
            store,
            log,
          ),
    semanticWeight: embeddings?.weight,
  });
}
