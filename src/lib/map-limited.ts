/**
 * Runs `work` over `items` with at most `limit` calls in flight, results in the items' order.
 * Used where many requests must not crowd out others: the build's catalogue calls and the
 * service worker's background saving of pages.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
