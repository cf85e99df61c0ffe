import type { EventStatus, FailureReason, OrgId } from '@relay/core';
import type { Prisma } from '../database';

export interface NewEvent {
  id: string;
  organizationId: OrgId;
  source: string;
  providerId: string | null;
  targetUrl: string | null;
  body: Uint8Array;
  headers: Record<string, string>;
  nextAttemptAt: Date;
}

export interface StoredEvent {
  id: string;
  organizationId: OrgId;
  source: string;
  providerId: string | null;
  targetUrl: string | null;
  body: Uint8Array;
  headers: Record<string, string>;
  status: EventStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  failureReason: string | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

export interface NewAttempt {
  attemptNumber: number;
  kind: 'main' | 'hook';
  targetUrl: string;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  startedAt: Date;
  finishedAt: Date;
}

export type EventUpdate =
  | { status: 'delivered'; at: Date }
  | { status: 'queued'; nextAttemptAt: Date; error: string }
  | { status: 'failed'; reason: FailureReason; error: string };

export function createEventRepository(prisma: Prisma) {
  return {
    /** One multi-row insert for a whole ingest batch (rows may belong to different organizations). */
    async insertMany(rows: readonly NewEvent[]): Promise<void> {
      await prisma.event.createMany({
        data: rows.map((row) => ({ ...row, body: Uint8Array.from(row.body), status: 'queued' as const })),
      });
    },

    async findById(orgId: OrgId, id: string): Promise<StoredEvent | null> {
      const row = await prisma.event.findFirst({ where: { id, organizationId: orgId } });
      return row ? { ...row, organizationId: row.organizationId as OrgId, headers: row.headers as Record<string, string> } : null;
    },

    /** Stores an attempt (when one was made) and the event's new state in one transaction. */
    async recordOutcome(orgId: OrgId, id: string, attempt: NewAttempt | null, update: EventUpdate): Promise<void> {
      const data =
        update.status === 'delivered'
          ? { status: update.status, deliveredAt: update.at, nextAttemptAt: null, failureReason: null, lastError: null }
          : update.status === 'queued'
            ? { status: update.status, nextAttemptAt: update.nextAttemptAt, lastError: update.error }
            : { status: update.status, nextAttemptAt: null, failureReason: update.reason, lastError: update.error };
      const counted = attempt?.kind === 'main' ? { attemptCount: { increment: 1 } } : {};
      const writes = [prisma.event.updateMany({ where: { id, organizationId: orgId }, data: { ...data, ...counted } })];
      if (attempt) {
        await prisma.$transaction([
          prisma.deliveryAttempt.create({ data: { ...attempt, eventId: id, organizationId: orgId } }),
          ...writes,
        ]);
      } else {
        await Promise.all(writes);
      }
    },
  };
}

export type EventRepository = ReturnType<typeof createEventRepository>;
