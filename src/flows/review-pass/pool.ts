// Bounded parallel execution (docs/review-pass-protocol.md#parallel-execution "Run all reviewers for a round in parallel"),
// capped so a round of many reviewers does not start more processes than the machine can run.
// Results keep the order of the inputs, whatever order the calls finish in.

export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      results[i] = await fn(items[i] as T, i);
    }
  };
  const n = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: n }, () => worker()));
  return results;
}
