import type { Redis } from "ioredis";
import { connectRedis, type RedisAddress } from "./redis-address.js";
import type { MessageBus } from "./store.js";

/**
 * Redis pub/sub between broker instances. Subscribing takes a connection of
 * its own (a subscribed Redis connection runs no other command), opened on
 * the first subscription; publishing uses the store's.
 */
export class RedisBus implements MessageBus {
  private subscriber: Redis | undefined;
  private readonly listeners = new Map<string, Set<(message: string) => void>>();

  constructor(
    private readonly address: RedisAddress,
    private readonly publisher: Redis,
  ) {}

  async publish(channel: string, message: string): Promise<void> {
    await this.publisher.publish(channel, message);
  }

  subscribe(channel: string, listener: (message: string) => void): () => void {
    let listeners = this.listeners.get(channel);
    if (!listeners) {
      this.listeners.set(channel, (listeners = new Set()));
      // A failed subscription is retried by ioredis when it reconnects.
      this.connection()
        .subscribe(channel)
        .catch(() => undefined);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size > 0) return;
      this.listeners.delete(channel);
      this.subscriber?.unsubscribe(channel).catch(() => undefined);
    };
  }

  close(): void {
    this.subscriber?.disconnect();
  }

  private connection(): Redis {
    if (!this.subscriber) {
      this.subscriber = connectRedis(this.address, { maxRetriesPerRequest: null });
      this.subscriber.on("error", () => undefined);
      this.subscriber.on("message", (channel: string, message: string) => {
        for (const listener of this.listeners.get(channel) ?? []) listener(message);
      });
    }
    return this.subscriber;
  }
}
