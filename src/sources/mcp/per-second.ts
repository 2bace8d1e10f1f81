/**
 * A gate that lets at most `limit` items through in each wall-clock second
 * and drops the rest of that second's, telling `dropping` once for each
 * second that drops some: a backend flooding notifications costs a bounded
 * amount of relaying, and one log line a second.
 */
export function perSecond<T>(
  limit: number,
  pass: (item: T) => void,
  dropping: () => void,
): (item: T) => void {
  let second = 0;
  let count = 0;
  return (item) => {
    const now = Math.floor(Date.now() / 1000);
    if (now !== second) {
      second = now;
      count = 0;
    }
    if (++count > limit) {
      if (count === limit + 1) dropping();
      return;
    }
    pass(item);
  };
}
