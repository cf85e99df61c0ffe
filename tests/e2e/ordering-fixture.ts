import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import type { Pipeline } from './harness';
import { newEventId } from '@relay/test-support';

/**
 * An ordered rule with one blocked key, stored straight into the database: a head event that failed twice
 * and waits an hour for its next attempt (so no worker touches it meanwhile), and `waiting` events behind it.
 */
export async function seedBlockedKey(
  pipeline: Pipeline,
  options: { source: string; key: string; waiting?: number; orgId?: OrgId },
): Promise<{ ruleId: string; headId: string; waitingIds: string[]; blockedSince: Date }> {
  const orgId = options.orgId ?? DEFAULT_ORGANIZATION_ID;
  const prisma = pipeline.store.prisma;
  const targetUrl = 'http://127.0.0.1:9/ordered';
  const rule = await prisma.rule.create({
    data: {
      name: randomUUID(),
      organizationId: orgId,
      source: options.source,
      targetUrl,
      ordering: { header: 'x-key' },
    },
  });
  // Event ids order the key: the smallest is its head.
  const [headId, ...waitingIds] = Array.from({ length: 1 + (options.waiting ?? 2) }, newEventId).sort();
  const blockedSince = new Date(Date.now() - 90_000);
  for (const [i, id] of [headId!, ...waitingIds].entries()) {
    await prisma.event.create({
      data: {
        id,
        organizationId: orgId,
        source: options.source,
        ruleId: rule.id,
        targetUrl,
        body: Buffer.from(JSON.stringify({ n: i })),
        headers: { 'x-key': options.key },
        status: 'queued',
        attemptCount: i === 0 ? 2 : 0,
        nextAttemptAt: new Date(Date.now() + (i === 0 ? 3_600_000 : 0)),
      },
    });
    await prisma.eventOrdering.create({
      data: { eventId: id, organizationId: orgId, ruleId: rule.id, orderingKey: options.key },
    });
  }
  for (const attemptNumber of [1, 2]) {
    const finishedAt = new Date(blockedSince.getTime() + (attemptNumber - 1) * 30_000);
    await prisma.deliveryAttempt.create({
      data: {
        eventId: headId!,
        organizationId: orgId,
        attemptNumber,
        targetUrl,
        responseStatus: 503,
        durationMs: 5,
        startedAt: new Date(finishedAt.getTime() - 5),
        finishedAt,
      },
    });
  }
  return { ruleId: rule.id, headId: headId!, waitingIds, blockedSince };
}
