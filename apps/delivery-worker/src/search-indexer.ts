import type { EventSearchRepository } from '@relay/db';
import type { Logger } from 'pino';

export interface SearchIndexerDeps {
  search: EventSearchRepository;
  logger: Logger;
  /** Events per statement. */
  batchSize: number;
  /** True while this worker's deliveries are busy: indexing then yields to them (see maxPendingWhileBusy). */
  busy?: () => boolean;
  /**
   * While busy, indexing waits until this many events are pending, then indexes one batch per round:
   * searches scan pending events directly, so this bounds what a search costs during a backlog.
   */
  maxPendingWhileBusy?: number;
  /**
   * How many deliveries this worker has started so far (a running count). A run that sees it moved since the
   * previous run indexes one batch, not the whole backlog: see indexPending.
   */
  started?: () => number;
  /** While busy, a count of the pending events holds this long before the next (default 1 s). */
  countEveryMs?: number;
  /** The clock the count's schedule follows (milliseconds). */
  now?: () => number;
}

// Ingest leaves the search index alone (it records pending event ids); the indexer moves pending
// events into event_search_chunks, a batch per transaction, until none are left. Searches match pending events
// directly, so the index only has to catch up, not keep up. Indexing reads every payload once (the worker
// hashes its trigrams, docs/search.md), so it yields to deliveries: while they are busy it waits, up to a
// bound on the pending events; while any run it indexes one batch per run; only a worker with no delivery started
// since its previous run drains the whole backlog.

/** Stale chunks rebuilt per statement (each up to SEARCH_CHUNK_EVENTS events' texts). */
const STALE_CHUNKS_PER_ROUND = 5;

export function createSearchIndexer(deps: SearchIndexerDeps) {
  const now = deps.now ?? Date.now;
  let running: Promise<number> | undefined;
  let nextCount = 0;
  let overBound = false;
  const startedNow = () => deps.started?.() ?? 0;
  let startedAtLastRun = startedNow();

  // Chunks that lost events to a deletion still hold the deleted payloads' keys (harmless to a search, which
  // rechecks every event, but a deleted payload should leave no trace): a few per run, all of them when idle.
  async function rebuildStale(): Promise<void> {
    while ((await deps.search.rebuildStale(STALE_CHUNKS_PER_ROUND)) === STALE_CHUNKS_PER_ROUND && !deps.busy?.());
  }

  async function drainPending(): Promise<number> {
    const indexed = await indexPending();
    await rebuildStale();
    return indexed;
  }

  async function indexPending(): Promise<number> {
    if (deps.busy?.()) {
      // Counting up to the bound reads that many rows: at every run of both workers during a drain it was the
      // indexer's largest statement (docs/performance.md). So the count holds for a second: under the bound the
      // backlog waits a second longer, over it a batch per run goes on for a second (a few batches under it).
      if (now() >= nextCount) {
        const bound = deps.maxPendingWhileBusy ?? 0;
        overBound = (await deps.search.countPending(bound)) >= bound;
        nextCount = now() + (deps.countEveryMs ?? 1_000);
      }
      return overBound ? deps.search.indexPending(deps.batchSize) : 0;
    }
    // Deliveries run, but under a quarter of the slots: one batch per run (every SEARCH_INDEX_INTERVAL_MS per
    // worker). Draining a backlog of a few thousand back to back held both of Postgres' cores for seconds and put
    // the deliveries of those seconds behind it: the e2e p99 at half the sustainable rate went 46-80 ms to
    // 273-335 ms when the phase began with one (docs/performance.md, "Search catch-up and the delivery tail").
    const started = startedNow();
    const idle = started === startedAtLastRun;
    startedAtLastRun = started;
    if (!idle) return deps.search.indexPending(deps.batchSize);
    let total = 0;
    for (;;) {
      const indexed = await deps.search.indexPending(deps.batchSize);
      total += indexed;
      if (indexed < deps.batchSize) return total;
      // A backlog that arrives while a long run indexes would otherwise wait for all of it (a run over
      // 40,000 pending events holds a Postgres core for ~15 s): between batches, deliveries come first.
      if (deps.busy?.() || startedNow() !== startedAtLastRun) return total;
    }
  }

  return {
    /** Indexes what is pending (everything, unless deliveries are busy); a call during a run joins it. */
    runOnce(): Promise<number> {
      running ??= drainPending().finally(() => (running = undefined));
      return running;
    },
    /** Runs every `intervalMs` until the returned stop function is called (it waits for the run). */
    start(intervalMs: number): () => Promise<void> {
      const timer = setInterval(() => {
        void this.runOnce().catch((err: unknown) =>
          deps.logger.warn({ err }, 'search indexing failed; will try again'),
        );
      }, intervalMs);
      return async () => {
        clearInterval(timer);
        await running?.catch(() => {});
      };
    },
  };
}
