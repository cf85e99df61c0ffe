// Group commit: concurrent callers share one flush (one multi-row insert, one bulk enqueue). A batch
// closes when it reaches maxSize or maxWaitMs after its first item, and with maxInFlight only when a
// flush slot is free; each caller's promise settles when its batch has been flushed, so nobody is
// answered before their data is durable.
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
  /**
   * At most this many flushes at once (default: no limit). With a limit, the store's own speed sets the
   * batch size: alone, an item is flushed at once (after maxWaitMs, 0 = the current turn of the event
   * loop); while every slot is busy, arrivals gather into the next batch. Low latency when quiet, big
   * batches (fewer statements and commits per item) under load, without a timer to tune.
   */
  maxInFlight?: number;
  /**
   * A batch also closes when its items' sizes add up to maxBytes (an item larger than that is a batch
   * of its own). Bounds the memory one flush needs whatever the payloads' sizes: a store that encodes
   * a batch as one statement holds a multiple of the batch's bytes while it runs.
   */
  maxBytes?: number;
  sizeOf?: (item: T) => number;
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
  /** Items submitted and not yet in a flush (waiting for their batch to close). */
  waiting(): number;
}

export function createGroupCommit<T, R>(options: GroupCommitOptions<T, R>): GroupCommit<T, R> {
  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  const batch: Pending<T, R>[] = [];
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const sizeOf = options.sizeOf ?? (() => 0);
  // Bytes of the items waiting in `batch`.
  let pendingBytes = 0;
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  const inFlight = new Set<Promise<void>>();

  const clearTimer = () => {
    if (timer === undefined) return;
    if (options.maxWaitMs > 0) clearTimeout(timer as NodeJS.Timeout);
    else clearImmediate(timer as NodeJS.Immediate);
    timer = undefined;
  };
  const schedule = () => {
    if (timer !== undefined) return;
    timer = options.maxWaitMs > 0 ? setTimeout(pump, options.maxWaitMs) : setImmediate(pump);
  };
  const start = (items: Pending<T, R>[]) => {
    const run = runFlush(items).finally(() => {
      inFlight.delete(run);
      // What arrived while every slot was busy is the next batch.
      if (batch.length > 0) schedule();
    });
    inFlight.add(run);
  };
  // The next batch: up to maxSize items and maxBytes, always at least one item.
  const take = (): Pending<T, R>[] => {
    let count = 0;
    let bytes = 0;
    while (count < batch.length && count < options.maxSize) {
      const size = sizeOf(batch[count]!.item);
      if (count > 0 && bytes + size > maxBytes) break;
      bytes += size;
      count++;
    }
    pendingBytes -= bytes;
    return batch.splice(0, count);
  };
  // Starts a batch in every free flush slot.
  function pump() {
    clearTimer();
    while (batch.length > 0 && inFlight.size < maxInFlight) start(take());
  }

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
        pendingBytes += sizeOf(item);
        if (inFlight.size >= maxInFlight) return;
        if (batch.length >= options.maxSize || pendingBytes >= maxBytes) pump();
        else schedule();
      });
    },
    async drain() {
      while (batch.length > 0 || inFlight.size > 0) {
        pump();
        await Promise.race([...inFlight]);
      }
    },
    waiting: () => batch.length,
  };
}
