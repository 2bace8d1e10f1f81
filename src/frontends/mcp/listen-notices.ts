import type { ServerNotifier } from "@modelcontextprotocol/server";
import type { Broker } from "../../broker/broker.js";
import { qualifiedUri } from "./aggregate-names.js";

/**
 * Tells open `subscriptions/listen` streams of the aggregated endpoint what
 * changed: the tree, and the sources' resources and prompts (updates under
 * their qualified URIs). Returns the cleanup.
 */
export function notifyBrokerChanges(broker: Broker, notify: ServerNotifier): () => void {
  const offTree = broker.onTreeChange(() => notify.toolsChanged());
  const offSources = broker.onSourceEvent((source, event) => {
    if (event.type === "changed") {
      if (event.what === "resources") notify.resourcesChanged();
      if (event.what === "prompts") notify.promptsChanged();
    } else if (event.notification.method === "notifications/resources/updated") {
      notify.resourceUpdated(qualifiedUri(source, event.notification.params.uri));
    }
  });
  return () => {
    offTree();
    offSources();
  };
}

/** The same for one source's own endpoint, under the source's own URIs. */
export function notifySourceChanges(
  broker: Broker,
  name: string,
  notify: ServerNotifier,
): () => void {
  const offTree = broker.onTreeChange(() => notify.toolsChanged());
  const offSource = broker.onSourceEvent((from, event) => {
    if (from !== name) return;
    if (event.type === "changed") {
      if (event.what === "resources") notify.resourcesChanged();
      if (event.what === "prompts") notify.promptsChanged();
    } else if (event.notification.method === "notifications/resources/updated") {
      notify.resourceUpdated(event.notification.params.uri);
    }
  });
  return () => {
    offTree();
    offSource();
  };
}
