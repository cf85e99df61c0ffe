import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { Redis } from 'ioredis';
import type { ApiRuntime } from '../../apps/api/src/runtime';
import {
  createOrganization,
  REDIS_URL,
  startApiReplica,
  startPipeline,
  userCredential,
  type Pipeline,
} from './harness';
import { listen, openStream, type SseClient, type SseMessage } from './sse-client';

let pipeline: Pipeline;
let target: TargetServer;
let replica: ApiRuntime;
let ingestApi: { url: string; close(): Promise<void> };
let streamApi: { url: string; close(): Promise<void> };
let viewer: string;
let admin: string;
let redis: Redis;
const open: SseClient[] = [];

const stream = async (headers: Record<string, string> = {}, query = '') => {
  const client = await openStream(`${streamApi.url}/events/stream${query}`, { authorization: viewer, ...headers });
  open.push(client);
  return client;
};
const ingest = async (source: string) => {
  const res = await fetch(`${ingestApi.url}/${source}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"n":1}',
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
};
const about = (id: string, type: string) => (m: SseMessage) =>
  m.event === type &&
  ((m.data as { id?: string; event_id?: string }).id ?? (m.data as { event_id?: string }).event_id) === id;
const subscribers = async () =>
  (
    (await redis.pubsub('NUMSUB', `${pipeline.prefix}:feed:00000000-0000-7000-8000-000000000001`)) as [string, number]
  )[1];

beforeAll(async () => {
  target = await startTargetServer();
  pipeline = await startPipeline();
  // Two api processes: webhooks go to the first, the stream is read from the second.
  ingestApi = await listen(pipeline.api.app);
  replica = startApiReplica(pipeline, { STREAM_HEARTBEAT_MS: '150' });
  streamApi = await listen(replica.app);
  viewer = (await userCredential(pipeline, 'viewer')).authorization;
  admin = (await userCredential(pipeline, 'admin')).authorization;
  redis = new Redis(REDIS_URL);
  await pipeline.http
    .post('/rules')
    .set('authorization', admin)
    .send({ source: 'live', target_url: `${target.url}/ok` })
    .expect(201);
  await pipeline.http
    .post('/rules')
    .set('authorization', admin)
    .send({ source: 'broken', target_url: `${target.url}/bad` })
    .expect(201);
});
afterAll(async () => {
  for (const client of open) client.close();
  await streamApi.close();
  await replica.close();
  await ingestApi.close();
  await pipeline.close();
  await target.close();
  redis.disconnect();
});

describe('GET /events/stream', () => {
  it('delivers created, attempt and status messages to a subscriber of another api process', async () => {
    target.replyWith(200);
    const client = await stream();
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const id = await ingest('live');
    const created = await client.next(about(id, 'event.created'));
    expect(created.data).toEqual({ id, source: 'live', status: 'queued', created_at: expect.any(String) });
    expect(Number(created.id)).toBeGreaterThan(0);
    const attempt = await client.next(about(id, 'attempt'));
    expect(attempt.data).toMatchObject({
      event_id: id,
      attempt_number: 1,
      kind: 'main',
      response_status: 200,
      error: null,
    });
    const status = await client.next(about(id, 'event.status'));
    expect(status.data).toEqual({ id, status: 'delivered', failure_reason: null, acknowledged: false });
    const order = client.messages
      .filter((m) => [about(id, 'event.created'), about(id, 'attempt'), about(id, 'event.status')].some((p) => p(m)))
      .map((m) => m.event);
    expect(order).toEqual(['event.created', 'attempt', 'event.status']);
  });

  it('reports failures and the admin actions on them: ack, retry, delete', async () => {
    target.replyWith(400);
    const client = await stream();
    const id = await ingest('broken');
    expect((await client.next(about(id, 'event.status'))).data).toMatchObject({
      status: 'failed',
      failure_reason: 'http_status',
    });
    await pipeline.http.post(`/events/${id}/ack`).set('authorization', admin).expect(200);
    await client.next((m) => about(id, 'event.status')(m) && (m.data as { acknowledged: boolean }).acknowledged);
    target.replyWith(200);
    await pipeline.http.post(`/events/${id}/retry`).set('authorization', admin).expect(202);
    await client.next((m) => about(id, 'event.status')(m) && (m.data as { status: string }).status === 'delivered');
    expect(
      client.messages.filter(about(id, 'attempt')).map((m) => (m.data as { attempt_number: number }).attempt_number),
    ).toEqual([1, 2]);
    await pipeline.http.delete(`/events/${id}`).set('authorization', admin).expect(204);
    expect((await client.next(about(id, 'event.deleted'))).data).toEqual({ id });
  });

  it('resumes from Last-Event-ID with what happened meanwhile, from the database', async () => {
    target.replyWith(200);
    const before = String(Date.now() - 1);
    const id = await ingest('live');
    await pipeline.waitForStatus(id, 'delivered');
    const resumed = await stream({ 'last-event-id': before });
    await resumed.next(about(id, 'event.created'));
    await resumed.next(about(id, 'attempt'));
    expect((await resumed.next(about(id, 'event.status'))).data).toMatchObject({ status: 'delivered' });
    const viaQuery = await stream({}, `?last_event_id=${before}`);
    await viaQuery.next(about(id, 'event.status'));
    const bad = await stream({ 'last-event-id': 'yesterday' });
    expect(bad.status).toBe(400);
  });

  it('tells the client when the replay is cut at the limit, and ends streams at shutdown', async () => {
    const limited = startApiReplica(pipeline, { STREAM_REPLAY_LIMIT: '2' });
    const server = await listen(limited.app);
    try {
      const client = await openStream(`${server.url}/events/stream`, { authorization: viewer, 'last-event-id': '1' });
      await client.next((m) => m.event === 'replay.truncated');
      expect(client.messages.filter((m) => m.event !== 'replay.truncated')).toHaveLength(2);
      // Shutting down ends open streams, so the server can close; clients resume elsewhere.
      limited.beginShutdown();
      await waitFor(async () => (client.ended ? true : undefined), 30_000, 'the stream to end');
    } finally {
      await server.close();
      await limited.close();
    }
  });

  it("sends heartbeats and only the caller organization's events", async () => {
    const other = await createOrganization(pipeline, 'stream-other');
    const otherViewer = (await userCredential(pipeline, 'viewer', other)).authorization;
    const theirs = await stream({ authorization: otherViewer });
    const ours = await stream();
    await waitFor(async () => (theirs.comments.includes('heartbeat') ? true : undefined), 30_000, 'a heartbeat');
    const id = await ingest('live');
    await ours.next(about(id, 'event.created'));
    await new Promise((r) => setTimeout(r, 300));
    expect(theirs.messages).toEqual([]);
  });

  it('drops the Redis subscription when the last client disconnects', async () => {
    for (const client of open.splice(0)) client.close();
    await waitFor(async () => ((await subscribers()) === 0 ? true : undefined), 30_000, 'no subscribers');
    const a = await stream();
    const b = await stream();
    expect(await subscribers()).toBe(1);
    a.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(await subscribers()).toBe(1);
    b.close();
    await waitFor(async () => ((await subscribers()) === 0 ? true : undefined), 30_000, 'no subscribers');
  });

  it('needs events:read', async () => {
    expect((await stream({ authorization: '' })).status).toBe(401);
  });
});
