import type { EventSearchRepository } from '@relay/db';
import type { Logger } from 'pino';

export interface SearchIndexerDeps {
  search: EventSearchRepository;
  logger: Logger;
  /** Events per statement: large batches are what make background indexing cheaper than per-ingest. */
  batchSize: number;
}

// Ingest leaves the trigram index alone (it records pending event ids); the indexer moves pending
// events into event_search, a batch per statement, until none are left. Searches match pending events
// directly, so the index only has to catch up, not keep up.
export function createSearchIndexer(deps: SearchIndexerDeps) {
  let running: Promise<number> | undefined;

  async function drainPending(): Promise<number> {
    let total = 0;
    for (;;) {
      const indexed = await deps.search.indexPending(deps.batchSize);
      total += indexed;
      if (indexed < deps.batchSize) return total;
    }
  }

  return {
    /** Indexes everything pending; a call while a run is going joins that run. */
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

export type SearchIndexer = ReturnType<typeof createSearchIndexer>;
