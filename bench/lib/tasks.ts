/** Running many tasks (requests, set-up writes) a few at a time. */

/** Runs `count` tasks with at most `concurrency` at once. */
export async function inParallel(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
