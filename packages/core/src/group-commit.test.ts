import { createGroupCommit } from './group-commit';

describe('group commit', () => {
  it('shares one flush between concurrent submissions and answers each with its own result', async () => {
    const flushes: number[][] = [];
    const commit = createGroupCommit<number, number>({
      maxSize: 100,
      maxWaitMs: 5,
      flush: async (items) => {
        flushes.push(items);
        return items.map((n) => n * 10);
      },
    });
    const results = await Promise.all([1, 2, 3].map((n) => commit.submit(n)));
    expect(results).toEqual([10, 20, 30]);
    expect(flushes).toEqual([[1, 2, 3]]);
  });

  it('closes a batch at maxSize', async () => {
    const sizes: number[] = [];
    const commit = createGroupCommit<number, number>({
      maxSize: 2,
      maxWaitMs: 1_000,
      flush: async (items) => (sizes.push(items.length), items),
    });
    await Promise.all([1, 2, 3, 4].map((n) => commit.submit(n)));
    expect(sizes).toEqual([2, 2]);
  });

  it('rejects every caller of a failed flush, and later batches still work', async () => {
    let fail = true;
    const commit = createGroupCommit<number, number>({
      maxSize: 10,
      maxWaitMs: 0,
      flush: async (items) => {
        if (fail) throw new Error('db down');
        return items;
      },
    });
    await expect(Promise.all([commit.submit(1), commit.submit(2)])).rejects.toThrow('db down');
    fail = false;
    await expect(commit.submit(3)).resolves.toBe(3);
  });

  it('retries a failed batch item by item, so one refused item fails alone', async () => {
    const flushes: number[][] = [];
    const commit = createGroupCommit<number, number>({
      maxSize: 10,
      maxWaitMs: 5,
      flush: async (items) => {
        flushes.push(items);
        if (items.includes(13)) throw new Error('refused 13');
        return items;
      },
    });
    const results = await Promise.allSettled([1, 13, 2].map((n) => commit.submit(n)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      1,
      'refused 13',
      2,
    ]);
    expect(flushes).toEqual([[1, 13, 2], [1], [13], [2]]);
  });

  it('does not retry alone what retryAlone declines (an error every item shares)', async () => {
    let calls = 0;
    const commit = createGroupCommit<number, number>({
      maxSize: 10,
      maxWaitMs: 5,
      retryAlone: () => false,
      flush: async () => {
        calls++;
        throw new Error('db down');
      },
    });
    const results = await Promise.allSettled([1, 2, 3].map((n) => commit.submit(n)));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(calls).toBe(1);
  });

  it('drain flushes what is pending', async () => {
    const seen: number[] = [];
    const commit = createGroupCommit<number, number>({
      maxSize: 10,
      maxWaitMs: 60_000,
      flush: async (items) => (seen.push(...items), items),
    });
    const pending = commit.submit(7);
    await commit.drain();
    expect(seen).toEqual([7]);
    await expect(pending).resolves.toBe(7);
  });
});
