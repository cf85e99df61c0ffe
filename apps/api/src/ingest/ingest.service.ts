import { AppError, createGroupCommit, type OrgId } from '@relay/core';
import { isDatabaseUnavailable, type EventRepository, type NewEvent, type TargetResolver } from '@relay/db';
import type { DeliveryQueue } from '@relay/queue';
import type { Logger } from 'pino';
import { v7 as uuidv7 } from 'uuid';

export interface IncomingWebhook {
  orgId: OrgId;
  source: string;
  body: Buffer;
  headers: Record<string, string>;
  /** A policy-checked X-Target-Url, when the override is enabled. */
  targetOverride?: string;
}

export interface IngestServiceDeps {
  events: EventRepository;
  targets: TargetResolver;
  queue: DeliveryQueue;
  logger: Logger;
  batch: { maxSize: number; maxWaitMs: number };
  enqueueTimeoutMs?: number;
  now?: () => Date;
}

export function createIngestService(deps: IngestServiceDeps) {
  const now = deps.now ?? (() => new Date());
  const enqueueTimeoutMs = deps.enqueueTimeoutMs ?? 1_000;

  async function flush(items: IncomingWebhook[]): Promise<string[]> {
    const at = now();
    const lookups = items.filter((item) => item.targetOverride === undefined);
    let rows: NewEvent[];
    try {
      const targets = await deps.targets.resolveMany(lookups);
      rows = items.map((item) => {
        const target = item.targetOverride
          ? { targetUrl: item.targetOverride, providerId: null }
          : targets.get(deps.targets.keyOf(item))!;
        return { id: uuidv7(), organizationId: item.orgId, source: item.source, ...target, body: item.body, headers: item.headers, nextAttemptAt: at };
      });
      await deps.events.insertMany(rows);
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw new AppError('database_unavailable');
      throw err;
    }
    // Committed: from here on the webhook is ours. A failed or slow enqueue is only logged; the
    // worker's sweeper enqueues any queued event that has no job.
    await enqueueWithin(rows).catch((err: unknown) =>
      deps.logger.warn({ err, events: rows.length }, 'enqueue failed after commit; the sweeper will enqueue these events'),
    );
    return rows.map((row) => row.id);
  }

  function enqueueWithin(rows: NewEvent[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`enqueue took longer than ${enqueueTimeoutMs} ms`)), enqueueTimeoutMs);
    });
    const enqueue = deps.queue.enqueue(rows.map((row) => ({ orgId: row.organizationId, eventId: row.id })));
    return Promise.race([enqueue, timeout]).finally(() => clearTimeout(timer));
  }

  const commit = createGroupCommit<IncomingWebhook, string>({ ...deps.batch, flush });

  return {
    /** Stores the webhook durably, enqueues it, and returns the new event id. */
    accept: (webhook: IncomingWebhook) => commit.submit(webhook),
    drain: () => commit.drain(),
  };
}

export type IngestService = ReturnType<typeof createIngestService>;
