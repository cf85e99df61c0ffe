import { fairShareLimits, queueShardOf } from '@relay/core';
import { sleep, waitFor, type TargetServer } from '@relay/test-support';
import type { Env, Pipeline } from './harness';

// Issue 33 item 5: a steady ingest load through a Redis failover, then the count of what the target received. A
// provider retries a webhook that did not get its 202 (a 503 while Redis switches), so the load does too.

/** Worker settings of the failover suites: a sweeper quick to re-enqueue what a dead primary lost. */
export const FAILOVER_WORKER_ENV = {
  DELIVERY_CONCURRENCY: '8',
  DELIVERY_FAIR_RESERVE_PERCENT: '25',
  DELIVERY_MAX_ATTEMPTS: '10',
  SWEEP_INTERVAL_MS: '500',
  // Short: the sweeper re-enqueues what a lost primary took with it a second after it is due. (With 1 s, these tests
  // once saw duplicates with no fault at all: ingest put each job on shard 0 and the sweeper a second one on the
  // rule's shard, fixed since; tests/e2e/queue-shards-ingest.test.ts.)
  SWEEP_GRACE_MS: '1000',
  // A production-like lock: with the harness's 1 s one, a job whose run the switch or a loaded machine held up past
  // a second was taken again while it still ran (22 duplicates of 300 in one run).
  WORKER_LOCK_DURATION_MS: '10000',
  WORKER_STALLED_INTERVAL_MS: '5000',
} satisfies Env;

/**
 * The most jobs the worker holds at once over `shards` queue shards: each shard's BullMQ worker takes its part of
 * the pool and a reserve of its own (fair-gate.ts). A duplicate is a job taken again while its first run still went
 * on (its state lost with the primary or its lock expired during the switch), so at most this many.
 */
export function jobsInFlight(shards: number): number {
  const { jobs } = fairShareLimits({
    poolSize: Math.ceil(Number(FAILOVER_WORKER_ENV.DELIVERY_CONCURRENCY) / shards),
    sharePercent: 100,
    reservePercent: Number(FAILOVER_WORKER_ENV.DELIVERY_FAIR_RESERVE_PERCENT),
  });
  return jobs * shards;
}

export interface LoadResult {
  /** Event ids of the webhooks answered 202. */
  accepted: string[];
  /** When the fault started (Date.now()). */
  faultAt: number;
  /** Answers other than 202 that the load retried, by status. */
  retried: Record<number, number>;
}

/**
 * Ingests `total` webhooks over `sources` (round robin), `parallel` at a time with a short pause between each, and
 * starts `fault` once `faultAfter` are accepted; resolves when every webhook got its 202 and the fault settled.
 */
export async function ingestThroughFault(
  pipeline: Pipeline,
  options: { sources: string[]; total: number; parallel: number; faultAfter: number; fault: () => Promise<unknown> },
): Promise<LoadResult> {
  const accepted: string[] = [];
  const retried: Record<number, number> = {};
  let next = 0;
  let fault: Promise<unknown> | undefined;
  let faultAt = 0;
  const send = async (n: number) => {
    for (;;) {
      const res = await pipeline.http
        .post(`/${options.sources[n % options.sources.length]}`)
        .set('content-type', 'application/json')
        .send(JSON.stringify({ n }))
        .catch(() => undefined);
      if (res?.status === 202) return res.body.id as string;
      const status = res?.status ?? 0;
      if (status !== 0 && status !== 503 && status !== 429 && status < 500) {
        throw new Error(`webhook ${n}: ${status} ${JSON.stringify(res?.body)}`);
      }
      retried[status] = (retried[status] ?? 0) + 1;
      await sleep(100);
    }
  };
  const lane = async () => {
    while (next < options.total) {
      const n = next++;
      accepted.push(await send(n));
      if (accepted.length >= options.faultAfter && !fault) {
        faultAt = Date.now();
        fault = options.fault();
      }
      await sleep(10);
    }
  };
  await Promise.all(Array.from({ length: options.parallel }, lane));
  await fault;
  return { accepted, retried, faultAt };
}

export interface Receipts {
  /** Accepted events the target never received. */
  lost: string[];
  /** Receipts past the first of an accepted event. */
  duplicates: number;
  /** Receipts of events the load never saw accepted (a retried ingest that had been stored after all). */
  unknown: number;
  /** Duplicates by the target path (one rule each, so one queue shard each). */
  duplicatesByPath: Record<string, number>;
  /** When each duplicate's first and second receipt came, in ms after the fault started. */
  secondReceipts: Array<{ firstMs: number; againMs: number }>;
}

/** Waits until every accepted event is delivered (no time bound but the test's), then counts the target's receipts. */
export async function receiptsOf(
  pipeline: Pipeline,
  target: TargetServer,
  accepted: string[],
  faultAt = 0,
): Promise<Receipts> {
  await waitFor(
    async () => {
      const delivered = await pipeline.store.prisma.event.count({
        where: { id: { in: accepted }, status: 'delivered' },
      });
      return delivered === accepted.length ? true : undefined;
    },
    200_000,
    `all ${accepted.length} accepted events delivered`,
  );
  // A late second delivery of an event (a stalled job taken again) shows in the count if it comes at all.
  await sleep(3_000);
  const counts = new Map<string, number>();
  for (const request of target.requests) {
    const id = String(request.headers['x-relay-event-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const known = new Set(accepted);
  const duplicatesByPath: Record<string, number> = {};
  const seen = new Set<string>();
  const secondReceipts: Receipts['secondReceipts'] = [];
  for (const request of target.requests) {
    const id = String(request.headers['x-relay-event-id']);
    if (seen.has(id)) {
      duplicatesByPath[request.url] = (duplicatesByPath[request.url] ?? 0) + 1;
      const first = target.requests.find((r) => String(r.headers['x-relay-event-id']) === id)!;
      secondReceipts.push({ firstMs: first.receivedAt - faultAt, againMs: request.receivedAt - faultAt });
    }
    seen.add(id);
  }
  return {
    lost: accepted.filter((id) => !counts.has(id)),
    duplicates: accepted.reduce((sum, id) => sum + Math.max(0, (counts.get(id) ?? 0) - 1), 0),
    unknown: [...counts.keys()].filter((id) => !known.has(id)).length,
    duplicatesByPath,
    secondReceipts,
  };
}

/** Rules until every queue shard has one, so the load reaches every shard (and every primary): their sources. */
export async function rulesOnEveryShard(
  pipeline: Pipeline,
  authorization: string,
  target: TargetServer,
  shards: number,
): Promise<string[]> {
  const sources: string[] = [];
  const covered = new Set<number>();
  for (let i = 0; covered.size < shards; i++) {
    const rule = await pipeline.http
      .post('/rules')
      .set('authorization', authorization)
      .send({ source: `load-${i}`, target_url: `${target.url}/load-${i}` })
      .expect(201);
    sources.push(`load-${i}`);
    covered.add(queueShardOf(rule.body.id as string, shards));
  }
  return sources;
}
