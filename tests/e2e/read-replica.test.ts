import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createDatabase, createReadRepositories, createReplicaRoute, type Database } from '@relay/db';
import {
  createRelayDatabase,
  newEventId,
  reopenEvents,
  sleep,
  startPgCluster,
  uniqueQueuePrefix,
  waitFor,
  type PgCluster,
} from '@relay/test-support';
import pg from 'pg';
import { pino } from 'pino';
import supertest from 'supertest';
import { parseApiConfig } from '../../apps/api/src/config';
import { createApiRuntime, type ApiRuntime } from '../../apps/api/src/runtime';
import { REDIS_URL, userCredential } from './harness';
import { parseExposition } from './metrics-text';

interface LogLine {
  level: number;
  msg: string;
}

// An api runtime on the private primary with the replica as DATABASE_READ_URL, and what it logs.
function startApi(primaryUrl: string, replicaUrl: string, maxLagSeconds: number) {
  const logs: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const config = parseApiConfig({
    DATABASE_URL: primaryUrl,
    DATABASE_READ_URL: replicaUrl,
    DATABASE_READ_MAX_LAG_SECONDS: String(maxLagSeconds),
    DATABASE_POOL_SIZE: '4',
    REDIS_URL,
    QUEUE_PREFIX: uniqueQueuePrefix(),
    LOG_LEVEL: 'info',
    API_VALIDATE_RESPONSES: 'true',
    API_RATE_LIMIT: '0',
    TARGET_ALLOW_PRIVATE: 'true',
  });
  const api = createApiRuntime(config, pino({ level: 'info' }, sink));
  const said = (msg: string) => logs.filter((line) => line.msg.startsWith(msg)).length;
  return { api, http: supertest(api.app), said };
}

const READ_REPLICA_IN_USE = 'read replica in use';
const READ_REPLICA_BEHIND = 'read replica is behind';
const READ_REPLICA_UNAVAILABLE = 'read replica unavailable';

// A real streaming replica of a private primary (pg_basebackup -R), both on spare ports: history reads go to the
// replica, reads of one's own write to the primary; a replica paused behind the bound or stopped is left for the
// primary, logged once each way, never a 500.
describe('read replica (DATABASE_READ_URL)', () => {
  let cluster: PgCluster;
  let primaryUrl: string;
  let replicaUrl: string;
  let store: Database;
  let replicaAdmin: pg.Client;
  let relaxed: ReturnType<typeof startApi>;
  let strict: ReturnType<typeof startApi>;
  let admin: string;
  const apis: ApiRuntime[] = [];

  const seed = async (status: 'delivered' | 'failed', source = 'replica') => {
    const id = newEventId();
    await store.pool.query(
      `INSERT INTO events (id, organization_id, source, body, headers, status, created_at, updated_at)
       VALUES ($1, $2, $3, convert_to('{"a":1}', 'UTF8'), '{}'::jsonb, $4::"EventStatus",
         now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')`,
      [id, DEFAULT_ORGANIZATION_ID, source, status],
    );
    await reopenEvents(store.pool, [id]);
    return id;
  };
  const onReplica = async (id: string) =>
    (await replicaAdmin.query('SELECT 1 FROM events WHERE id = $1', [id])).rowCount === 1;
  const replicated = (id: string) => waitFor(async () => (await onReplica(id)) || undefined, 60_000, 'replication');
  const pause = () => replicaAdmin.query('SELECT pg_wal_replay_pause()');
  const resume = () => replicaAdmin.query('SELECT pg_wal_replay_resume()');
  const listedIds = async (http: supertest.Agent) =>
    (
      (await http.get('/events?per_page=100').set('authorization', admin).expect(200)).body.events as { id: string }[]
    ).map((e) => e.id);
  const replicaDetail = async (http: supertest.Agent) => (await http.get('/ready').expect(200)).body.replica;

  beforeAll(async () => {
    cluster = await startPgCluster({ replica: true });
    primaryUrl = await createRelayDatabase(cluster.url);
    replicaUrl = primaryUrl.replace(`:${cluster.port}/`, `:${cluster.replica!.port}/`);
    store = createDatabase({ url: primaryUrl, poolSize: 2 });
    // The relay database and its tables reach the replica by replication, soon after the migrations.
    replicaAdmin = await waitFor(
      async () => {
        const client = new pg.Client({ connectionString: replicaUrl });
        try {
          await client.connect();
          if ((await client.query(`SELECT to_regclass('events') AS t`)).rows[0].t) return client;
        } catch {
          // not there yet
        }
        await client.end().catch(() => {});
        return undefined;
      },
      60_000,
      'the relay database on the replica',
    );
    admin = (await userCredential({ store }, 'admin')).authorization;
    relaxed = startApi(primaryUrl, replicaUrl, 3_600);
    strict = startApi(primaryUrl, replicaUrl, 1);
    apis.push(relaxed.api, strict.api);
    for (const api of apis) await api.start();
    for (const side of [relaxed, strict])
      await waitFor(async () => (await replicaDetail(side.http))?.reads === 'replica' || undefined, 60_000, 'ok');
  }, 240_000); // initdb, a base backup and the migrations take a while on a busy machine

  // A frozen replica is thawed even when its test failed by timing out (its `finally` then never runs): the pools'
  // connections to it must finish before the runtimes can close.
  afterEach(() => cluster?.replica?.thaw());

  afterAll(async () => {
    for (const api of apis) await api.close();
    await replicaAdmin?.end().catch(() => {});
    await store?.close();
    cluster?.remove();
  });

  it('reports the replica on /ready and in /metrics: reads on it, no lag', async () => {
    const detail = await replicaDetail(relaxed.http);
    expect(detail).toEqual({ status: 'ok', reads: 'replica', lag_seconds: 0, lag_bytes: 0 });
    const res = await relaxed.http.get('/metrics').expect(200);
    const samples = parseExposition(res.text).samples;
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    expect(value('relay_db_replica_lag_seconds')).toBe(0);
    expect(value('relay_db_replica_lag_bytes')).toBe(0);
    expect(value('relay_db_replica_status', { status: 'ok' })).toBe(1);
    expect(value('relay_db_replica_status', { status: 'unavailable' })).toBe(0);
    expect(relaxed.said(READ_REPLICA_IN_USE)).toBe(1);
    // A list is read on the replica: its own sessions show the read side's connections.
    await listedIds(relaxed.http);
    const { rows } = await replicaAdmin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'relay-api-read'`,
    );
    expect(rows[0].n).toBeGreaterThan(0);
  });

  it('answers history reads from the replica and reads of its own write from the primary', async () => {
    const failed = await seed('failed');
    await replicated(failed);
    await pause();
    try {
      // Written on the primary while the replica is paused: history reads (replica) do not see it yet.
      const fresh = await seed('delivered', 'only-primary');
      expect(await listedIds(relaxed.http)).not.toContain(fresh);
      await relaxed.http.get(`/events/${fresh}`).set('authorization', admin).expect(404);
      const stats = await relaxed.http.get('/stats').set('authorization', admin).expect(200);
      expect(stats.body.by_source.map((s: { source: string }) => s.source)).not.toContain('only-primary');
      const sources = await relaxed.http.get('/events/sources').set('authorization', admin).expect(200);
      expect(sources.body.sources.map((s: { source: string }) => s.source)).not.toContain('only-primary');

      // The acknowledge's answer shows the acknowledgement (read on the primary); the replica still has the old row.
      const acked = await relaxed.http.post(`/events/${failed}/ack`).set('authorization', admin).expect(200);
      expect(acked.body.acknowledged).toBe(true);
      const history = await relaxed.http.get(`/events/${failed}`).set('authorization', admin).expect(200);
      expect(history.body.acknowledged).toBe(false);

      // A rule just created is found at once: rules are read on the primary.
      const created = await relaxed.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: `fresh-${randomUUID().slice(0, 8)}`, target_url: 'http://127.0.0.1:9999/hook' })
        .expect(201);
      await relaxed.http.get(`/rules/${created.body.id}`).set('authorization', admin).expect(200);

      // The lag shows while the replica is paused behind a write (within this api's bound: reads stay on it).
      await waitFor(
        async () => {
          const detail = await replicaDetail(relaxed.http);
          return detail.lag_bytes > 0 && detail.lag_seconds > 0 ? detail : undefined;
        },
        60_000,
        'the lag to show',
      );
      expect((await replicaDetail(relaxed.http)).reads).toBe('replica');
    } finally {
      await resume();
    }
    await waitFor(async () => (await replicaDetail(relaxed.http)).lag_bytes === 0 || undefined, 60_000, 'caught up');
  });

  it('routes the export pages to the replica too', async () => {
    const primaryPool = new pg.Pool({ connectionString: primaryUrl, max: 2 });
    const replicaPool = new pg.Pool({ connectionString: replicaUrl, max: 2 });
    const route = createReplicaRoute({
      primary: primaryPool,
      replica: replicaPool,
      maxLagSeconds: 3_600,
      onSwitch: () => {},
    });
    try {
      await waitFor(async () => route.useReplica() || undefined, 60_000, 'the route to use the replica');
      const reads = createReadRepositories(primaryPool, { pool: replicaPool, route });
      await pause();
      try {
        const fresh = await seed('delivered', 'export-only-primary');
        const page = await reads.exports.exportPage(DEFAULT_ORGANIZATION_ID, null, 10_000);
        expect(page.map((e) => e.id)).not.toContain(fresh);
      } finally {
        await resume();
      }
    } finally {
      route.close();
      await primaryPool.end();
      await replicaPool.end();
    }
  });

  it('sends reads to the primary while the replica is behind the bound, logged once each way', async () => {
    // The earlier paused test may have put this api (1 s bound) behind too: its own lines are counted from here.
    await waitFor(async () => (await replicaDetail(strict.http)).reads === 'replica' || undefined, 60_000, 'ok');
    const behindBefore = strict.said(READ_REPLICA_BEHIND);
    const inUseBefore = strict.said(READ_REPLICA_IN_USE);
    await pause();
    let fresh: string;
    try {
      fresh = await seed('delivered', 'while-behind');
      await waitFor(
        async () => (await replicaDetail(strict.http)).status === 'behind' || undefined,
        60_000,
        'the replica to count as behind',
      );
      expect(await replicaDetail(strict.http)).toMatchObject({ status: 'behind', reads: 'primary' });
      // The primary answers: the event the replica has not replayed is listed.
      expect(await listedIds(strict.http)).toContain(fresh);
      // More checks while it stays behind say nothing more.
      await waitFor(async () => (await replicaDetail(strict.http)).lag_seconds > 3 || undefined, 60_000, 'checks');
      expect(strict.said(READ_REPLICA_BEHIND)).toBe(behindBefore + 1);
    } finally {
      await resume();
    }
    await waitFor(async () => (await replicaDetail(strict.http)).reads === 'replica' || undefined, 60_000, 'back');
    expect(strict.said(READ_REPLICA_BEHIND)).toBe(behindBefore + 1);
    expect(strict.said(READ_REPLICA_IN_USE)).toBe(inUseBefore + 1);
    expect(await listedIds(strict.http)).toContain(fresh);
  });

  it('moves reads waiting on a replica that stops answering (frozen) to the primary, logged once', async () => {
    const fresh = await seed('delivered', 'while-frozen');
    await replicated(fresh);
    await waitFor(async () => (await replicaDetail(strict.http)).reads === 'replica' || undefined, 60_000, 'ok');
    const unavailableBefore = strict.said(READ_REPLICA_UNAVAILABLE);
    const inUseBefore = strict.said(READ_REPLICA_IN_USE);
    // Open connections to the replica in its pool (idle), so the next read is sent on one rather than connecting.
    await Promise.all([1, 2, 3, 4].map(() => listedIds(strict.http)));
    cluster.replica!.freeze();
    try {
      // Sent to the replica (its checks still passed a moment ago): answered by the primary once they fail.
      expect(await listedIds(strict.http)).toContain(fresh);
      expect(await replicaDetail(strict.http)).toMatchObject({ status: 'unavailable', reads: 'primary' });
      await strict.http.get('/stats').set('authorization', admin).expect(200);
      expect(strict.said(READ_REPLICA_UNAVAILABLE)).toBe(unavailableBefore + 1);
    } finally {
      cluster.replica!.thaw();
    }
    await waitFor(async () => (await replicaDetail(strict.http)).reads === 'replica' || undefined, 60_000, 'back');
    expect(strict.said(READ_REPLICA_UNAVAILABLE)).toBe(unavailableBefore + 1);
    expect(strict.said(READ_REPLICA_IN_USE)).toBe(inUseBefore + 1);
  });

  it('sends reads to the primary while the replica is stopped, without an error or a hang, logged once', async () => {
    const fresh = await seed('delivered', 'while-stopped');
    await replicated(fresh);
    await waitFor(async () => (await replicaDetail(relaxed.http)).reads === 'replica' || undefined, 60_000, 'ok');
    const inUseBefore = relaxed.said(READ_REPLICA_IN_USE);
    const unavailableBefore = relaxed.said(READ_REPLICA_UNAVAILABLE);
    await replicaAdmin.end();
    cluster.replica!.stop();
    try {
      // The first reads may still be routed to the replica: they fail to reach it and are made on the primary.
      for (let i = 0; i < 3; i++) expect(await listedIds(relaxed.http)).toContain(fresh);
      await relaxed.http.get(`/events/${fresh}`).set('authorization', admin).expect(200);
      await relaxed.http.get('/stats').set('authorization', admin).expect(200);
      await waitFor(
        async () => (await replicaDetail(relaxed.http)).status === 'unavailable' || undefined,
        60_000,
        'the replica to count as unavailable',
      );
      const detail = await replicaDetail(relaxed.http);
      expect(detail).toMatchObject({ status: 'unavailable', reads: 'primary', lag_seconds: null, lag_bytes: null });
      expect(typeof detail.error).toBe('string');
      // Several more checks fail: still said once.
      await sleep(2_500);
      expect(await listedIds(relaxed.http)).toContain(fresh);
      expect(relaxed.said(READ_REPLICA_UNAVAILABLE)).toBe(unavailableBefore + 1);
    } finally {
      cluster.replica!.start();
    }
    await waitFor(async () => (await replicaDetail(relaxed.http)).reads === 'replica' || undefined, 60_000, 'back');
    expect(relaxed.said(READ_REPLICA_UNAVAILABLE)).toBe(unavailableBefore + 1);
    expect(relaxed.said(READ_REPLICA_IN_USE)).toBe(inUseBefore + 1);
  });
});
