import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/core";
import type { Server, ServerCapabilities } from "@modelcontextprotocol/server";
import {
  qualifiedName,
  qualifiedUri,
  qualifiedUriTemplate,
  splitName,
  splitUri,
} from "./aggregate-names.js";
import type { Broker } from "../../../broker/broker.js";
import { BrokerError } from "../../../contract/errors.js";
import type { CacheHint, CallerContext } from "../../../contract/router.js";
import { combinedHint, hintOf, leastFresh } from "./cache-hint.js";
import type { SourceView } from "../../../broker/source-view.js";
import { announce } from "./announce.js";
import { handleRequest } from "./handle-request.js";
import type { HandlerHost } from "./handler-host.js";
import type { RequestExtra } from "./request-context.js";

export const AGGREGATE_CAPABILITIES: ServerCapabilities = {
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
};

/**
 * Resources and prompts of every source in the aggregated `/mcp`, under
 * qualified names and URIs (aggregate-names.ts), each request through the
 * broker and its policy at the source's node. Lists gather all sources that
 * offer the feature to this caller; a source that fails (or is down) is left
 * out of a list rather than failing it. Returns the (qualified) URIs the
 * session subscribes to.
 */
export function serveAggregateCatalog(
  host: HandlerHost,
  broker: Broker,
  context: (extra: RequestExtra) => CallerContext,
): ReadonlySet<string> {
  const handling = { log: broker.log };
  const offering = (feature: "resources" | "prompts", ctx: CallerContext) =>
    broker
      .allSources()
      .filter((s) => s.capabilities()[feature] !== undefined && s.visibleTo(ctx.principal));
  /**
   * One feature's list from every source that offers it to this caller, every
   * page, qualified; with the caching hint of the whole (a source left out
   * for failing makes the whole stale).
   */
  const gather = async <R extends { nextCursor?: string }, T>(
    feature: "resources" | "prompts",
    ctx: CallerContext,
    page: (source: SourceView, cursor: string | undefined) => Promise<R>,
    items: (page: R) => T[],
    qualify: (source: SourceView, item: T) => T,
  ): Promise<{ items: T[]; hint: ReturnType<typeof combinedHint> }> => {
    const lists = await Promise.allSettled(
      offering(feature, ctx).map(async (source) => {
        const all = await allPages((cursor) => page(source, cursor), items);
        return { ...all, items: all.items.map((item) => qualify(source, item)) };
      }),
    );
    return {
      items: lists.flatMap((r) => (r.status === "fulfilled" ? r.value.items : [])),
      hint: combinedHint(
        lists.map((r) => (r.status === "fulfilled" ? r.value.hint : undefined)),
        ctx.principal,
      ),
    };
  };
  const byUri = (uri: string) => {
    const split = splitUri(uri);
    if (!split)
      throw new BrokerError(
        "invalid_params",
        `unknown resource URI "${uri}"; resources/list shows the URIs there are`,
      );
    return { source: broker.source(split.source).name, uri: split.uri };
  };
  const byName = (name: string) => {
    const split = splitName(name, broker.sourceNames());
    if (!split)
      throw new BrokerError(
        "invalid_params",
        `unknown prompt "${name}"; prompts/list shows the prompts there are`,
      );
    return { source: split.source, name: split.name };
  };

  handleRequest(host, ListResourcesRequestSchema, handling, async (_r, extra) => {
    const ctx = context(extra);
    const { items, hint } = await gather(
      "resources",
      ctx,
      (source, cursor) => broker.request(source.name, "resources/list", { cursor }, ctx),
      (page) => page.resources,
      (source, res) => ({
        ...res,
        name: qualifiedName(source.name, res.name),
        uri: qualifiedUri(source.name, res.uri),
      }),
    );
    return { resources: items, ...hint };
  });
  handleRequest(host, ListResourceTemplatesRequestSchema, handling, async (_r, extra) => {
    const ctx = context(extra);
    const { items, hint } = await gather(
      "resources",
      ctx,
      (source, cursor) => broker.request(source.name, "resources/templates/list", { cursor }, ctx),
      (page) => page.resourceTemplates,
      (source, t) => ({
        ...t,
        name: qualifiedName(source.name, t.name),
        uriTemplate: qualifiedUriTemplate(source.name, t.uriTemplate),
      }),
    );
    return { resourceTemplates: items, ...hint };
  });
  handleRequest(host, ReadResourceRequestSchema, handling, async (r, extra) => {
    const { source, uri } = byUri(r.params.uri);
    const result = await broker.request(
      source,
      "resources/read",
      { ...r.params, uri },
      context(extra),
    );
    return {
      ...result,
      contents: result.contents.map((c) => ({ ...c, uri: qualifiedUri(source, c.uri) })),
    };
  });

  const subscribed = new Set<string>();
  handleRequest(host, SubscribeRequestSchema, handling, async (r, extra) => {
    const { source, uri } = byUri(r.params.uri);
    await broker.request(source, "resources/subscribe", { ...r.params, uri }, context(extra));
    subscribed.add(r.params.uri);
    return {};
  });
  handleRequest(host, UnsubscribeRequestSchema, handling, async (r, extra) => {
    const { source, uri } = byUri(r.params.uri);
    subscribed.delete(r.params.uri);
    await broker.request(source, "resources/unsubscribe", { ...r.params, uri }, context(extra));
    return {};
  });

  handleRequest(host, ListPromptsRequestSchema, handling, async (_r, extra) => {
    const ctx = context(extra);
    const { items, hint } = await gather(
      "prompts",
      ctx,
      (source, cursor) => broker.request(source.name, "prompts/list", { cursor }, ctx),
      (page) => page.prompts,
      (source, p) => ({ ...p, name: qualifiedName(source.name, p.name) }),
    );
    return { prompts: items, ...hint };
  });
  handleRequest(host, GetPromptRequestSchema, handling, async (r, extra) => {
    const { source, name } = byName(r.params.name);
    return broker.request(source, "prompts/get", { ...r.params, name }, context(extra));
  });
  handleRequest(host, CompleteRequestSchema, handling, async (r, extra) => {
    const ref = r.params.ref;
    if (ref.type === "ref/prompt") {
      const { source, name } = byName(ref.name);
      return broker.request(
        source,
        "completion/complete",
        { ...r.params, ref: { ...ref, name } },
        context(extra),
      );
    }
    const { source, uri } = byUri(ref.uri);
    return broker.request(
      source,
      "completion/complete",
      { ...r.params, ref: { ...ref, uri } },
      context(extra),
    );
  });

  return subscribed;
}

/**
 * Tells a 2025-era session what changed in the sources' resources and prompts,
 * and passes on updates of the resources it subscribed to, under their
 * qualified URIs. Returns the cleanup for when the session closes.
 */
export function announceCatalogChanges(
  server: Server,
  broker: Broker,
  subscribed: ReadonlySet<string>,
): () => void {
  return broker.onSourceEvent((source, event) => {
    if (event.type === "changed") {
      if (event.what === "resources") announce(server, "resources");
      if (event.what === "prompts") announce(server, "prompts");
      return;
    }
    const n = event.notification;
    if (n.method !== "notifications/resources/updated") return;
    const uri = qualifiedUri(source, n.params.uri);
    if (subscribed.has(uri))
      void server.notification({ ...n, params: { ...n.params, uri } }).catch(() => undefined);
  });
}

/** Every page of a list, following `nextCursor`, and the caching hint of them all. */
async function allPages<R extends { nextCursor?: string }, T>(
  page: (cursor: string | undefined) => Promise<R>,
  items: (result: R) => T[],
): Promise<{ items: T[]; hint: CacheHint | undefined }> {
  const all: T[] = [];
  const hints: (CacheHint | undefined)[] = [];
  let cursor: string | undefined;
  do {
    const result = await page(cursor);
    all.push(...items(result));
    hints.push(hintOf(result));
    cursor = result.nextCursor;
  } while (cursor !== undefined);
  return { items: all, hint: leastFresh(hints, true) };
}
