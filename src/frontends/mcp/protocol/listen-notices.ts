import type { ServerNotifier } from "@modelcontextprotocol/server";
import type { Broker } from "../../../broker/broker.js";
import { qualifiedUri } from "./aggregate-names.js";

/**
 * Tells an endpoint's open `subscriptions/listen` streams what changed: the
 * tree, and the resources and prompts of every source (the aggregated
 * endpoint, updates under qualified URIs) or of `source` alone (its own
 * endpoint, under its own URIs). Returns the cleanup.
 */
export function notifyChanges(broker: Broker, notify: ServerNotifier, source?: string): () => void {
  const offTree = broker.onTreeChange(() => notify.toolsChanged());
  const offSources = broker.onSourceEvent((from, event) => {
    if (source !== undefined && from !== source) return;
    if (event.type === "changed") {
      if (event.what === "resources") notify.resourcesChanged();
      if (event.what === "prompts") notify.promptsChanged();
    } else if (event.notification.method === "notifications/resources/updated") {
      const uri = event.notification.params.uri;
      notify.resourceUpdated(source === undefined ? qualifiedUri(from, uri) : uri);
    }
  });
  return () => {
    offTree();
    offSources();
  };
}
