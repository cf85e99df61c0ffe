import type { ApiConfig } from './config';

const MB = 1_048_576;
// The api's own live heap under load (modules, caches, connections, in-flight requests): measured
// 45-70 MB under the benchmark's ingest saturation and overload phases (docs/performance.md).
const BASE_BYTES = 64 * MB;

/**
 * The heap ingest can need at its worst with these settings: every flush slot storing a batch (the
 * insert text-encodes a batch's bodies, about three times their bytes while it runs) while one more
 * payload is validated (its text and its parsed value, about six times its bytes).
 */
export function heapNeededBytes(
  config: Pick<ApiConfig, 'INGEST_MAX_BODY_BYTES' | 'INGEST_BATCH_MAX_BYTES' | 'INGEST_FLUSH_CONCURRENCY'>,
): number {
  const batchBytes = Math.max(config.INGEST_BATCH_MAX_BYTES, config.INGEST_MAX_BODY_BYTES);
  return BASE_BYTES + config.INGEST_FLUSH_CONCURRENCY * 3 * batchBytes + 6 * config.INGEST_MAX_BODY_BYTES;
}

/**
 * Why this process cannot run these settings, or undefined. Refusing to start says so at once; a heap
 * too small for the payloads the settings accept would crash under a burst of large webhooks instead.
 */
export function heapShortfall(config: Parameters<typeof heapNeededBytes>[0], heapLimitBytes: number) {
  const needed = heapNeededBytes(config);
  if (needed <= heapLimitBytes) return undefined;
  const neededMb = Math.ceil(needed / MB);
  return (
    `INGEST_MAX_BODY_BYTES=${config.INGEST_MAX_BODY_BYTES}, INGEST_BATCH_MAX_BYTES=${config.INGEST_BATCH_MAX_BYTES} ` +
    `and INGEST_FLUSH_CONCURRENCY=${config.INGEST_FLUSH_CONCURRENCY} need a heap of about ${neededMb} MB, ` +
    `but this process may use ${Math.floor(heapLimitBytes / MB)} MB: start node with ` +
    `--max-old-space-size=${Math.ceil(neededMb / 64) * 64} or more (NODE_OPTIONS), or lower those settings`
  );
}
