import type { DeliveryStatus, FeedAttempt, FeedMessage, OrgId } from '@relay/core';
import type { DeliveryChange, NewAttempt, Outcome } from '@relay/db';

type AttemptLike = Omit<NewAttempt, 'kind'> & { eventId: string; hookId?: string | null };

export function feedAttempt(kind: 'main' | 'hook', a: AttemptLike): FeedAttempt {
  return {
    event_id: a.eventId,
    attempt_number: a.attemptNumber,
    kind,
    hook_id: a.hookId ?? null,
    target_url: a.targetUrl,
    response_status: a.responseStatus,
    error: a.error,
    duration_ms: a.durationMs,
    finished_at: a.finishedAt.toISOString(),
  };
}

/** What the live feed hears of a committed delivery outcome: the attempt, and the new status unless still queued. */
export function outcomeMessages(outcome: Outcome, now: number): { orgId: OrgId; message: FeedMessage }[] {
  const list: { orgId: OrgId; message: FeedMessage }[] = [];
  if (outcome.attempt)
    list.push({
      orgId: outcome.orgId,
      message: {
        type: 'attempt',
        at: outcome.attempt.finishedAt.getTime(),
        data: feedAttempt('main', { ...outcome.attempt, eventId: outcome.id }),
      },
    });
  if (outcome.update.status !== 'queued') {
    const failureReason = outcome.update.status === 'failed' ? outcome.update.reason : null;
    list.push({
      orgId: outcome.orgId,
      message: {
        type: 'event.status',
        at: now,
        data: { id: outcome.id, status: outcome.update.status, failure_reason: failureReason, acknowledged: false },
      },
    });
  }
  return list;
}

/** What the live feed hears of a destination delivery whose status or attempt count changed, once committed. */
export function deliveryMessage(change: DeliveryChange, status: DeliveryStatus, now: number): FeedMessage {
  return {
    type: 'delivery.status',
    at: now,
    data: {
      event_id: change.eventId,
      delivery_id: change.id,
      destination_id: change.destinationId,
      status,
      attempt_count: change.attemptCount,
    },
  };
}
