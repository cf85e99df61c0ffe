import { randomUUID } from 'node:crypto';
import { createFairShare, DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import {
  createEventRepository,
  createRuleRepository,
  type Database,
  type RuleRecord,
  type StoredEvent,
} from '@relay/db';
import { pino } from 'pino';
import { createFairGate, type FairGate } from '../fair-gate';
import { v7 as uuidv7 } from 'uuid';

// Fixtures of the stage tests (prepare, send, settle): real rows in a test database, written the way the
// API and ingest write them, so each stage meets what it meets in production.

export const ORG: OrgId = DEFAULT_ORGANIZATION_ID;
export const quiet = pino({ level: 'silent' });
export const RETRY = { maxAttempts: 3, backoffBaseMs: 1_000, backoffMaxMs: 60_000, retryAfterMaxMs: 60_000 };

export async function newRule(
  db: Database,
  data: {
    source: string;
    targetUrl?: string;
    ordering?: object;
    deliveryPolicy?: object;
    health?: 'unhealthy';
    filter?: object;
    transform?: string;
  },
): Promise<RuleRecord> {
  const row = await db.prisma.rule.create({
    data: { name: randomUUID(), organizationId: ORG, targetUrl: 'http://target.example/hook', ...data },
  });
  return (await createRuleRepository(db.prisma).findById(ORG, row.id))!;
}

/** One event as ingest stores it: its rule and target are selected by its source. */
export async function newEvent(
  db: Database,
  event: {
    source: string;
    nextAttemptAt?: Date;
    orderingKey?: string;
    ruleId?: string;
    body?: string;
    path?: string;
    query?: Record<string, string | string[]>;
  } = { source: 'none' },
): Promise<StoredEvent> {
  const events = createEventRepository(db.pool, { defaultTargetUrl: undefined });
  // Time-ordered, as ingest's: the oldest id of an ordering key is its head.
  const id = uuidv7();
  await events.insertMany([
    {
      id,
      organizationId: ORG,
      source: event.source,
      targetOverride: null,
      body: Buffer.from(event.body ?? '{"stage":true}'),
      ...(event.path !== undefined ? { path: event.path } : {}),
      ...(event.query !== undefined ? { query: event.query } : {}),
      headers: { 'content-type': 'application/json' },
      nextAttemptAt: event.nextAttemptAt ?? new Date(0),
      ...(event.ruleId ? { ruleId: event.ruleId } : {}),
      ...(event.orderingKey ? { orderingKey: event.orderingKey } : {}),
    },
  ]);
  return (await events.findById(ORG, id))!;
}

/** A real fair gate over `poolSize` slots: one origin alone may hold them all; a refused event never waits. */
export function fairGateOf(poolSize: number): FairGate {
  const share = createFairShare({
    poolSize,
    sharePercent: 100,
    reservePercent: 0,
    activeWindowMs: 1_000,
    waitMs: 500,
    maxWaitMs: 5_000,
    flowingMs: 0,
  });
  return createFairGate(share, 0);
}
