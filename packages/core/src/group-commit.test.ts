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

  it('counts the items waiting for their batch, and none once drained', async () => {
    const commit = createGroupCommit<number, number>({
      maxSize: 100,
      maxWaitMs: 60_000,
      flush: async (items) => items,
    });
    const answers = [commit.submit(1), commit.submit(2)];
    expect(commit.waiting()).toBe(2);
    await commit.drain();
    expect(commit.waiting()).toBe(0);
    expect(await Promise.all(answers)).toEqual([1, 2]);
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

describe('group commit with maxInFlight', () => {
  const deferred = () => {
    let release!: () => void;
    const done = new Promise<void>((r) => (release = r));
    return { done, release };
  };

  it('flushes a lone item in the same turn of the event loop, without waiting for company', async () => {
    const commit = createGroupCommit<number, number>({
      maxSize: 100,
      maxWaitMs: 0,
      maxInFlight: 1,
      flush: async (i) => i,
    });
    let settled = false;
    const result = commit.submit(7).then((v) => ((settled = true), v));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(true);
    await expect(result).resolves.toBe(7);
  });

  it('gathers what arrives while every slot is busy into the next batch', async () => {
    const flushes: number[][] = [];
    const gates: ReturnType<typeof deferred>[] = [];
    const commit = createGroupCommit<number, number>({
      maxSize: 100,
      maxWaitMs: 0,
      maxInFlight: 1,
      flush: async (items) => {
        flushes.push(items);
        const gate = deferred();
        gates.push(gate);
        await gate.done;
        return items;
      },
    });
    const first = commit.submit(1);
    await new Promise((r) => setImmediate(r));
    expect(flushes).toEqual([[1]]);
    // The slot is busy: these wait, together.
    const rest = [2, 3, 4].map((n) => commit.submit(n));
    await new Promise((r) => setImmediate(r));
    expect(flushes).toEqual([[1]]);
    gates[0]!.release();
    await first;
    for (let turn = 0; turn < 5 && flushes.length < 2; turn++) await new Promise((r) => setImmediate(r));
    expect(flushes).toEqual([[1], [2, 3, 4]]);
    gates[1]!.release();
    await expect(Promise.all(rest)).resolves.toEqual([2, 3, 4]);
  });

  it('splits a backlog into batches of maxSize and drains everything', async () => {
    const sizes: number[] = [];
    let running = 0;
    let most = 0;
    const commit = createGroupCommit<number, number>({
      maxSize: 3,
      maxWaitMs: 0,
      maxInFlight: 2,
      flush: async (items) => {
        running++;
        most = Math.max(most, running);
        sizes.push(items.length);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return items;
      },
    });
    const all = Array.from({ length: 10 }, (_, i) => commit.submit(i));
    await commit.drain();
    await expect(Promise.all(all)).resolves.toHaveLength(10);
    expect(most).toBe(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(10);
  });
});

describe('group commit bounded by bytes', () => {
  it('closes a batch when its sizes reach maxBytes, and a larger item goes alone', async () => {
    const flushes: number[][] = [];
    const commit = createGroupCommit<number, number>({
      maxSize: 100,
      maxWaitMs: 0,
      maxBytes: 10,
      sizeOf: (n) => n,
      flush: async (items) => (flushes.push(items), items),
    });
    await Promise.all([4, 4, 4, 30, 1, 2].map((n) => commit.submit(n)));
    expect(flushes).toEqual([[4, 4], [4], [30], [1, 2]]);
  });

  it('with flush slots, what gathers while busy is split by bytes too', async () => {
    const flushes: number[][] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const commit = createGroupCommit<number, number>({
      maxSize: 100,
      maxWaitMs: 0,
      maxInFlight: 1,
      maxBytes: 6,
      sizeOf: (n) => n,
      flush: async (items) => {
        flushes.push(items);
        if (flushes.length === 1) await gate;
        return items;
      },
    });
    const all = Promise.all([1, 3, 3, 3, 3].map((n) => commit.submit(n)));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await all;
    // The first batch closes on the next turn with what arrived by then (4 bytes), the rest by bytes.
    expect(flushes).toEqual([[1, 3], [3, 3], [3]]);
  });
});
