// Group commit: concurrent callers share one flush (one multi-row insert, one bulk enqueue). A batch
// closes when it reaches maxSize or maxWaitMs after its first item; each caller's promise settles
// when its batch has been flushed, so nobody is answered before their data is durable.
export interface GroupCommitOptions<T, R> {
  maxSize: number;
  maxWaitMs: number;
  flush: (items: T[]) => Promise<R[]>;
  /**
   * Whether a failed batch is retried item by item (default: always), so one item the store refuses
   * fails alone instead of failing everyone beside it. Say no for errors every item would share
   * (the database is down): retrying them alone only multiplies the wait.
   */
  retryAlone?: (err: unknown) => boolean;
}

interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommit<T, R> {
  submit(item: T): Promise<R>;
  /** Flushes what is pending and waits for every flush in progress. */
  drain(): Promise<void>;
}

export function createGroupCommit<T, R>(options: GroupCommitOptions<T, R>): GroupCommit<T, R> {
  let batch: Pending<T, R>[] = [];
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  const inFlight = new Set<Promise<void>>();

  const close = () => {
    if (timer !== undefined) {
      if (options.maxWaitMs > 0) clearTimeout(timer as NodeJS.Timeout);
      else clearImmediate(timer as NodeJS.Immediate);
      timer = undefined;
    }
    const items = batch;
    batch = [];
    if (items.length === 0) return;
    const run = runFlush(items);
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
  };

  const runFlush = async (items: Pending<T, R>[]): Promise<void> => {
    try {
      const results = await options.flush(items.map((p) => p.item));
      items.forEach((p, i) => p.resolve(results[i] as R));
    } catch (err) {
      if (items.length > 1 && (options.retryAlone?.(err) ?? true)) {
        await Promise.all(items.map((p) => runFlush([p])));
        return;
      }
      for (const p of items) p.reject(err);
    }
  };

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        batch.push({ item, resolve, reject });
        if (batch.length >= options.maxSize) close();
        else if (timer === undefined)
          timer = options.maxWaitMs > 0 ? setTimeout(close, options.maxWaitMs) : setImmediate(close);
      });
    },
    async drain() {
      close();
      await Promise.all([...inFlight]);
    },
  };
}
