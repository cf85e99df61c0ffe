import type { EventStatus } from '@relay/core';

// For the tests of the outcome statement: RECORD_OUTCOMES' parameters (in event.repository.ts' order) for outcomes
// without attempts, one status per event; a retry is due in a minute, a failure's reason is http_status.
export function outcomeValues(ids: readonly string[], orgId: string, statuses: readonly EventStatus[], counted = 0) {
  const none: unknown[] = [];
  const each = <T>(value: T) => ids.map(() => value);
  return [
    ...Array.from({ length: 11 }, () => none),
    ids,
    each(orgId),
    statuses,
    each(counted),
    statuses.map((s) => (s === 'queued' ? new Date(Date.now() + 60_000) : null)),
    statuses.map((s) => (s === 'failed' ? 'http_status' : null)),
    each(null),
    statuses.map((s) => (s === 'delivered' ? new Date() : null)),
    none,
  ];
}
