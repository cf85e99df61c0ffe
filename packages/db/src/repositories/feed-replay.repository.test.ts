import { DEFAULT_ORGANIZATION_ID, type FeedMessage } from '@relay/core';
import { eventOpenDrift, seedEvents, useTestDatabase } from '@relay/test-support';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase, type Database } from '../database';
import { createEventActionRepository } from './event-action.repository';
import { createEventRepository, type EventUpdate } from './event.repository';
import { createFeedReplayRepository, DELIVERED_CHANGED, OPEN_CHANGED } from './feed-replay.repository';
import { planNodes } from './list-plan-scans';

// The replay of the live feed from the database (Last-Event-ID). `events` has no index on updated_at any more
// (migration 20261207100000_hot_outcomes): the status changes come from event_open and from the attempts.
const database = useTestDatabase((url) => createDatabase({ url, poolSize: 4 }));
let db: Database;
beforeAll(() => {
  db = database();
});
afterEach(async () => {
  expect(await eventOpenDrift(db.pool)).toEqual([]);
});

const ORG = DEFAULT_ORGANIZATION_ID;
const AUDIT = { actorUserId: null, actorEmail: null, action: 'event.test', resourceType: 'event', resourceId: null };
const replay = () => createFeedReplayRepository(db.pool);
const events = () => createEventRepository(db.pool, { defaultTargetUrl: undefined });
const actions = () => createEventActionRepository(db.pool);

// Queued events stored an hour ago (their event.created messages are older than any moment the tests take).
const queued = (count: number) =>
  seedEvents(db.pool, { organizationId: ORG, count, status: 'queued', changedAt: new Date(Date.now() - 3_600_000) });

// An outcome of the primary's attempt, ending now, as the worker records it.
async function outcome(id: string, update: EventUpdate, attemptNumber = 1): Promise<void> {
  const finishedAt = new Date();
  await events().recordOutcomes([
    {
      orgId: ORG,
      id,
      attempt: {
        attemptNumber,
        kind: 'main',
        targetUrl: 'http://target.example/',
        responseStatus: update.status === 'delivered' ? 200 : 400,
        responseBody: null,
        error: update.status === 'delivered' ? null : 'HTTP 400',
        durationMs: 3,
        startedAt: finishedAt,
        finishedAt,
      },
      update,
    },
  ]);
  // The next change is at a later millisecond (the columns are timestamp(3)).
  await sleep(3);
}
// An admin's action, and the next change at a later millisecond.
async function act(action: () => Promise<unknown>): Promise<void> {
  await action();
  await sleep(3);
}
const delivered: EventUpdate = { status: 'delivered', at: new Date() };
const failed: EventUpdate = { status: 'failed', reason: 'http_status', error: 'HTTP 400' };

// A moment strictly between the changes made before and after it.
async function moment(): Promise<Date> {
  await sleep(3);
  const at = new Date();
  await sleep(3);
  return at;
}

const statuses = (messages: FeedMessage[]) =>
  messages.flatMap((m) => (m.type === 'event.status' ? [{ ...m.data, at: expect.any(Number) }] : []));
const attemptsOf = (messages: FeedMessage[]) =>
  messages.flatMap((m) => (m.type === 'attempt' ? [m.data.event_id] : []));

describe('feed replay', () => {
  it('replays the status changes since a moment, to delivered and to failed or acknowledged, and none before', async () => {
    const [early, earlyFailed, late, lateFailed, redelivered, retried] = await queued(6);
    await outcome(early!, delivered);
    await outcome(earlyFailed!, failed);
    await outcome(redelivered!, failed);
    await outcome(retried!, delivered);
    const since = await moment();
    await outcome(late!, delivered);
    await outcome(lateFailed!, failed);
    await act(() => actions().acknowledge(ORG, lateFailed!, AUDIT));
    await act(() => actions().acknowledge(ORG, earlyFailed!, AUDIT));
    // A failure retried and now delivered; a delivered event retried (open again, queued).
    await act(() => actions().retry(ORG, redelivered!, AUDIT));
    await outcome(redelivered!, delivered, 2);
    await act(() => actions().retry(ORG, retried!, AUDIT));

    const { messages, truncated } = await replay().since(ORG, since, 100);
    expect(truncated).toBe(false);
    const acked = { status: 'failed', failure_reason: 'http_status', acknowledged: true };
    const fine = { status: 'delivered', failure_reason: null, acknowledged: false };
    expect(statuses(messages)).toEqual([
      { id: late, ...fine, at: expect.any(Number) },
      { id: lateFailed, ...acked, at: expect.any(Number) },
      { id: earlyFailed, ...acked, at: expect.any(Number) },
      { id: redelivered, ...fine, at: expect.any(Number) },
      { id: retried, status: 'queued', failure_reason: null, acknowledged: false, at: expect.any(Number) },
    ]);
    expect(attemptsOf(messages)).toEqual([late, lateFailed, redelivered]);
    expect(messages.map((m) => m.at)).toEqual([...messages.map((m) => m.at)].sort((a, b) => a - b));
    // Each status message at the event's last change, as the feed told it live.
    const { rows } = await db.pool.query<{ id: string; at: Date }>(
      `SELECT id, updated_at AS at FROM events WHERE id = ANY($1::uuid[])`,
      [[late, lateFailed, earlyFailed, redelivered, retried]],
    );
    const changed = new Map(rows.map((r) => [r.id, r.at.getTime()]));
    for (const m of messages) if (m.type === 'event.status') expect(m.at).toBe(changed.get(m.data.id));
  });

  it('cuts the replay at the limit in time order, and says it was cut', async () => {
    const ids = await queued(5);
    const since = await moment();
    for (const id of ids) await outcome(id, delivered);
    const whole = await replay().since(ORG, since, 100);
    // Each delivery: its attempt, then its status.
    expect(whole.messages.map((m) => m.type)).toEqual(Array(5).fill(['attempt', 'event.status']).flat());
    expect(whole.truncated).toBe(false);
    for (const limit of [1, 2, 3, 4, 7, 9, 10]) {
      const cut = await replay().since(ORG, since, limit);
      expect(cut.messages).toEqual(whole.messages.slice(0, limit));
      expect(cut.truncated).toBe(limit < 10);
    }
  });

  it('reads event_open and the attempts by their (organization_id, <time>) indexes, events by primary key', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      // So that the plan shows which index answers each condition, however few rows the test holds.
      await client.query('SET LOCAL enable_seqscan = off');
      // The node types of a statement's plan and the indexes it reads.
      const plan = async (sql: string) => {
        const nodes = await planNodes(client, sql, [ORG, new Date().toISOString(), 101]);
        return {
          types: nodes.map((n) => n['Node Type']),
          indexes: [...new Set(nodes.flatMap((n) => n['Index Name'] ?? []))],
        };
      };
      const open = await plan(OPEN_CHANGED);
      expect(open.indexes).toContain('event_open_organization_id_updated_at_idx');
      const done = await plan(DELIVERED_CHANGED);
      // Each partition's copy of delivery_attempts' (organization_id, finished_at) index, and no other of its indexes.
      const attempts = done.indexes.filter((i) => i.startsWith('delivery_attempts'));
      expect(attempts.length).toBeGreaterThan(0);
      for (const index of attempts) expect(index).toMatch(/_organization_id_finished_at_idx/);
      for (const { types, indexes } of [open, done]) {
        expect(types).not.toContain('Seq Scan');
        // events by primary key only: it has no index of updated_at (or of status) any more.
        for (const index of indexes.filter((i) => /^events(_|$)/.test(i))) expect(index).toMatch(/_pkey/);
      }
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
