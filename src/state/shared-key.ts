import { randomBytes } from "node:crypto";
import type { StateStore } from "./store.js";

const A_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * A secret every instance sharing the store agrees on: the first to ask
 * writes a random one (compare-and-set, so one wins), the others read it.
 * For what one instance seals and another must open.
 */
export async function sharedKey(store: StateStore, name: string): Promise<Uint8Array> {
  const key = `secret:${name}`;
  await store.compareAndSet(key, undefined, randomBytes(32).toString("base64"), A_YEAR_MS);
  const value = await store.get(key);
  if (value === undefined) throw new Error(`the shared secret ${name} vanished from the store`);
  return Buffer.from(value, "base64");
}
