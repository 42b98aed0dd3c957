/**
 * Splitting work into the batches AWS APIs take, and running a few calls at once: never one
 * request after another for every row, never one connection per row. Adapters and use cases share it.
 */

/** Splits `items` into consecutive lists of at most `size` (the last may be shorter), in order. */
export const chunksOf = <T>(items: readonly T[], size: number): T[][] => {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
};

/**
 * Runs `work` on every item, at most `limit` at a time, and resolves when all are done (it rejects
 * with the first failure): a large batch's rows go out in parallel writes without opening one
 * connection per chunk.
 */
export const forEachLimited = async <T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> => {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
};

/** Runs `work` on every item, at most `limit` at a time, and gives each item's result in the items' order. */
export const mapLimited = async <T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  const indexes = items.map((_, index) => index);
  await forEachLimited(indexes, limit, async (index) => {
    results[index] = await work(items[index] as T);
  });
  return results;
};
