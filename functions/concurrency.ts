// Bounded concurrency, written once: a few async calls in flight at a time over a list (S3 parts and
// deletes, DynamoDB batch requests, a validate-batch call's addresses), so a large list never opens
// hundreds of requests at once.

/**
 * Runs `work` on every item, at most `limit` at once, taking items in order as calls finish. The first
 * failure rejects the whole run (calls already started are left to finish).
 */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
}

/** eachLimited that keeps each call's answer, in the items' order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const indexes = items.map((_, index) => index);
  await eachLimited(indexes, limit, async (index) => {
    results[index] = await work(items[index]!);
  });
  return results;
}
