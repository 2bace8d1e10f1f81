const sizes = new WeakMap<object, number>();

/**
 * A result's size serialized, in bytes, measured once: the limits link and
 * the audit link both need it for every call, and results are never changed
 * after the chain produced them.
 */
export function resultBytes(result: object): number {
  let size = sizes.get(result);
  if (size === undefined) {
    size = Buffer.byteLength(JSON.stringify(result));
    sizes.set(result, size);
  }
  return size;
}
