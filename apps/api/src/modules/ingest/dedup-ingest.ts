import { AppError, DEFAULT_DEDUP_WINDOW_SECONDS, dedupKeyOf, type EventStatus } from '@relay/core';
import { isDatabaseUnavailable, isOrganizationGone, type EventDedupRepository, type NewEvent } from '@relay/db';
import type { TraceSpan } from '@relay/service-kit';
import type { IncomingWebhook } from './incoming-webhook';
import type { IngestRule } from './ingest-rules';

/** A webhook's deduplication key under the rule that owns its source. */
export interface IngestDedupClaim {
  ruleId: string;
  key: string;
  windowSeconds: number;
  /** When the webhook arrived by the api's clock (injected in tests): windows are measured from it. */
  now: Date;
}

export type DedupAnswer =
  | { id: string; duplicate: false }
  /** Seen within the window: the original event's id and its current status; nothing was stored. */
  | { id: string; status: EventStatus; duplicate: true };

export interface DedupIngestDeps {
  dedup: Pick<EventDedupRepository, 'storeOnce'> | undefined;
  /** The ingest service's post-commit steps: enqueue and live feed, as for a group-committed event. */
  published: (
    rows: NewEvent[],
    rules: ReadonlyMap<string, string | null>,
    at: Date,
    traces?: readonly (TraceSpan | undefined)[],
  ) => void;
  /** The ordinary, group-committed path (no key applies any more). */
  accept: (webhook: IncomingWebhook) => Promise<string>;
}

/**
 * The claim of a webhook under its rule's `dedup` option; undefined when the rule has none or the
 * webhook carries no key (then it is stored like any other: docs/rules.md).
 */
export function dedupClaimOf(
  rule: Pick<IngestRule, 'id' | 'dedup'> | null,
  webhook: Pick<IncomingWebhook, 'headers' | 'body'>,
  now: Date,
): IngestDedupClaim | undefined {
  if (!rule?.dedup) return undefined;
  const key = dedupKeyOf(rule.dedup, webhook.headers, webhook.body);
  if (key === undefined) return undefined;
  const windowSeconds = rule.dedup.window_seconds ?? DEFAULT_DEDUP_WINDOW_SECONDS;
  return { ruleId: rule.id, key, windowSeconds, now };
}

// A webhook with a key is stored in a transaction of its own (the key's claim and the event commit
// together), so it skips the group commit; webhooks without one never come here.
export async function storeOnce(
  deps: DedupIngestDeps,
  row: NewEvent,
  webhook: IncomingWebhook,
  claim: IngestDedupClaim,
): Promise<DedupAnswer> {
  if (!deps.dedup) return { id: await deps.accept(webhook), duplicate: false };
  let result: Awaited<ReturnType<EventDedupRepository['storeOnce']>>;
  try {
    result = await deps.dedup.storeOnce(
      {
        orgId: row.organizationId,
        ruleId: claim.ruleId,
        key: claim.key,
        now: claim.now,
        windowSeconds: claim.windowSeconds,
      },
      row,
    );
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw new AppError('database_unavailable');
    if (isOrganizationGone(err)) throw new AppError('not_found', 'The organization no longer exists.');
    throw err;
  }
  switch (result.outcome) {
    case 'stored':
      deps.published([row], new Map([[row.id, result.ruleId]]), row.nextAttemptAt, [webhook.trace]);
      return { id: row.id, duplicate: false };
    case 'duplicate':
      return { id: result.eventId, status: result.status, duplicate: true };
    case 'no_rule':
      // The rule was deleted after ingest looked it up (its cache): its option no longer applies.
      return { id: await deps.accept(webhook), duplicate: false };
  }
}
