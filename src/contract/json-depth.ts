/**
 * Whether objects and arrays in `value` nest more than `max` levels. The walk
 * uses no recursion and stops one level past the limit, so it is safe on any
 * value, however deep: it runs before whatever would recurse over the value
 * (validation, serialization, digests) and could overflow its stack.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [item, depth] = top;
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}
