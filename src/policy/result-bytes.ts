const sizes = new WeakMap<object, number>();

/**
 * What `resultBytes` answers for a result too large to serialize at all (a
 * string longer than V8 allows, about 512 MiB): at least that much.
 */
export const UNMEASURABLE_BYTES = 2 ** 29;

/**
 * A result's size serialized, in bytes, measured once: the limits link and
 * the audit link both need it for every call, and results are never changed
 * after the chain produced them. Never throws: a result too large to
 * serialize measures `UNMEASURABLE_BYTES`, one that cannot be serialized
 * (a cycle) measures 0.
 */
export function resultBytes(result: object): number {
  let size = sizes.get(result);
  if (size === undefined) {
    try {
      size = Buffer.byteLength(JSON.stringify(result) ?? "");
    } catch (err) {
      size = err instanceof RangeError ? UNMEASURABLE_BYTES : 0;
    }
    sizes.set(result, size);
  }
  return size;
}
