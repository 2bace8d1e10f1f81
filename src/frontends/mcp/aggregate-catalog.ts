import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import {
  qualifiedName,
  qualifiedUri,
  qualifiedUriTemplate,
  splitName,
  splitUri,
} from "./aggregate-names.js";
import type { Broker } from "../../broker/broker.js";
import { BrokerError } from "../../contract/errors.js";
import type { CallContext } from "../../contract/router.js";
import type { SourceRelay } from "../../broker/source-relay.js";
import { announce } from "./announce.js";
import { protocolError } from "./protocol-error.js";
import type { RequestExtra } from "./request-context.js";

export const AGGREGATE_CAPABILITIES: ServerCapabilities = {
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
};

/**
 * Resources and prompts of every source in the aggregated `/mcp`, under
 * qualified names and URIs (core/aggregate-names.ts). Lists gather all sources
 * that offer the feature and are up; a source that fails is left out of a list
 * rather than failing it. Returns the cleanup for when the session closes.
 */
export function serveAggregateCatalog(
  server: Server,
  broker: Broker,
  context: (extra: RequestExtra) => CallContext,
): () => void {
  const offering = (feature: "resources" | "prompts", ctx: CallContext) =>
    broker
      .relays()
      .filter((r) => r.capabilities()[feature] !== undefined && r.visibleTo(ctx.principal));
  /** One feature's list from every source that offers it to this caller, every page, qualified. */
  const gather = async <R extends { nextCursor?: string }, T>(
    feature: "resources" | "prompts",
    ctx: CallContext,
    page: (relay: SourceRelay, cursor: string | undefined) => Promise<R>,
    items: (page: R) => T[],
    qualify: (relay: SourceRelay, item: T) => T,
  ): Promise<T[]> => {
    const lists = await Promise.allSettled(
      offering(feature, ctx).map(async (relay) =>
        (await allPages((cursor) => page(relay, cursor), items)).map((item) =>
          qualify(relay, item),
        ),
      ),
    );
    return lists.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
  };
  const byUri = (uri: string) => {
    const split = splitUri(uri);
    if (!split)
      throw new BrokerError(
        "invalid_params",
        `unknown resource URI "${uri}"; resources/list shows the URIs there are`,
      );
    return { relay: broker.relay(split.source), uri: split.uri };
  };
  const byName = (name: string) => {
    const split = splitName(name, broker.sourceNames());
    if (!split)
      throw new BrokerError(
        "invalid_params",
        `unknown prompt "${name}"; prompts/list shows the prompts there are`,
      );
    return { relay: broker.relay(split.source), name: split.name };
  };
  const guarded =
    <A extends unknown[], R>(work: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await work(...args);
      } catch (err) {
        throw protocolError(err);
      }
    };

  server.setRequestHandler(
    ListResourcesRequestSchema,
    guarded(async (_r, extra) => {
      const ctx = context(extra);
      return {
        resources: await gather(
          "resources",
          ctx,
          (relay, cursor) => relay.listResources({ cursor }, ctx),
          (page) => page.resources,
          (relay, res) => ({
            ...res,
            name: qualifiedName(relay.name, res.name),
            uri: qualifiedUri(relay.name, res.uri),
          }),
        ),
      };
    }),
  );
  server.setRequestHandler(
    ListResourceTemplatesRequestSchema,
    guarded(async (_r, extra) => {
      const ctx = context(extra);
      return {
        resourceTemplates: await gather(
          "resources",
          ctx,
          (relay, cursor) => relay.listResourceTemplates({ cursor }, ctx),
          (page) => page.resourceTemplates,
          (relay, t) => ({
            ...t,
            name: qualifiedName(relay.name, t.name),
            uriTemplate: qualifiedUriTemplate(relay.name, t.uriTemplate),
          }),
        ),
      };
    }),
  );
  server.setRequestHandler(
    ReadResourceRequestSchema,
    guarded(async (r, extra) => {
      const { relay, uri } = byUri(r.params.uri);
      const result = await relay.readResource({ ...r.params, uri }, context(extra));
      return {
        ...result,
        contents: result.contents.map((c) => ({ ...c, uri: qualifiedUri(relay.name, c.uri) })),
      };
    }),
  );

  const subscribed = new Set<string>();
  server.setRequestHandler(
    SubscribeRequestSchema,
    guarded(async (r, extra) => {
      const { relay, uri } = byUri(r.params.uri);
      await relay.subscribe(uri, context(extra));
      subscribed.add(r.params.uri);
      return {};
    }),
  );
  server.setRequestHandler(
    UnsubscribeRequestSchema,
    guarded(async (r, extra) => {
      const { relay, uri } = byUri(r.params.uri);
      subscribed.delete(r.params.uri);
      await relay.unsubscribe(uri, context(extra));
      return {};
    }),
  );

  server.setRequestHandler(
    ListPromptsRequestSchema,
    guarded(async (_r, extra) => {
      const ctx = context(extra);
      return {
        prompts: await gather(
          "prompts",
          ctx,
          (relay, cursor) => relay.listPrompts({ cursor }, ctx),
          (page) => page.prompts,
          (relay, p) => ({ ...p, name: qualifiedName(relay.name, p.name) }),
        ),
      };
    }),
  );
  server.setRequestHandler(
    GetPromptRequestSchema,
    guarded(async (r, extra) => {
      const { relay, name } = byName(r.params.name);
      return relay.getPrompt({ ...r.params, name }, context(extra));
    }),
  );
  server.setRequestHandler(
    CompleteRequestSchema,
    guarded(async (r, extra) => {
      const ref = r.params.ref;
      if (ref.type === "ref/prompt") {
        const { relay, name } = byName(ref.name);
        return relay.complete({ ...r.params, ref: { ...ref, name } }, context(extra));
      }
      const { relay, uri } = byUri(ref.uri);
      return relay.complete({ ...r.params, ref: { ...ref, uri } }, context(extra));
    }),
  );

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

/** Every page of a list, following `nextCursor`. */
async function allPages<R extends { nextCursor?: string }, T>(
  page: (cursor: string | undefined) => Promise<R>,
  items: (result: R) => T[],
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const result = await page(cursor);
    all.push(...items(result));
    cursor = result.nextCursor;
  } while (cursor !== undefined);
  return all;
}
