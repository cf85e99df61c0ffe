import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { AppError, DEFAULT_ORGANIZATION_ID } from '@relay/core';
import type { DeliveryQueue } from '@relay/queue';
import { pino } from 'pino';
import { createIngestService } from './ingest.service';
import { createWebhookService } from './webhook.service';
import { useServiceDatabase } from '../service-test-kit';
import { RESERVED_PATH_SEGMENTS } from '../../composition/catalog';

const store = useServiceDatabase();
let ingest: ReturnType<typeof createIngestService>;
const service = (allowTargetOverride = false) =>
  createWebhookService({
    ingest,
    organizationOf: async (host) => {
      if (host !== 'relay.example.com') throw new AppError('ingest_host_unknown');
      return DEFAULT_ORGANIZATION_ID;
    },
    maxBodyBytes: 64,
    maxPayloadDepth: 4,
    defaultSource: 'default',
    allowTargetOverride,
    targetPolicy: { allowPrivate: false, allowlist: [] },
    reservedSegments: RESERVED_PATH_SEGMENTS,
  });
const message = (body: string | Buffer, headers: Record<string, string> = {}) =>
  Object.assign(Readable.from([Buffer.from(body)]), {
    headers: { 'content-type': 'application/json', ...headers },
  }) as unknown as IncomingMessage;
const receive = (
  path: string,
  body: string | Buffer = '{"n":1}',
  headers: Record<string, string> = {},
  host = 'relay.example.com',
) =>
  service()
    .receive({ host, path, message: message(body, headers) })
    .then((receipt) => receipt.answer);
const events = () => store.db.prisma.event.count();

beforeAll(async () => {
  ingest = createIngestService({
    events: store.repositories().events,
    // The queue is Redis; the sweeper enqueues what it misses, so stored is what counts here.
    queue: { enqueue: async () => {} } as unknown as DeliveryQueue,
    logger: pino({ level: 'silent' }),
    batch: { maxSize: 10, maxWaitMs: 1 },
  });
});
afterAll(async () => {
  await ingest.drain();
});

describe('webhook service', () => {
  it('stores the body byte for byte with the source from the path, the header, or the default', async () => {
    const byPath = await receive('/github/org/repo', '{ "a" : 1 }');
    expect(byPath.status).toBe('queued');
    const stored = await store.db.prisma.event.findUniqueOrThrow({ where: { id: byPath.id } });
    expect(stored).toMatchObject({ source: 'github', organizationId: DEFAULT_ORGANIZATION_ID });
    // The payload is stored beside the row (event_payloads), not in it: the row an outcome updates stays narrow.
    expect(stored.body).toBeNull();
    const payload = await store.db.prisma.eventPayload.findUniqueOrThrow({ where: { eventId: byPath.id } });
    expect(Buffer.from(payload.body).toString()).toBe('{ "a" : 1 }');
    const byHeader = await receive('/github', '{}', { 'x-webhook-source': ' stripe ' });
    expect((await store.db.prisma.event.findUniqueOrThrow({ where: { id: byHeader.id } })).source).toBe('stripe');
    const byDefault = await receive('/');
    expect((await store.db.prisma.event.findUniqueOrThrow({ where: { id: byDefault.id } })).source).toBe('default');
  });

  it('refuses reserved paths, bad sources, unknown hosts and disabled overrides, storing nothing', async () => {
    const before = await events();
    await expect(receive('/API/x')).rejects.toMatchObject({ code: 'not_found' });
    await expect(receive('/openapi.json')).rejects.toMatchObject({ code: 'not_found' });
    await expect(receive('/-bad')).rejects.toMatchObject({ code: 'invalid_source' });
    await expect(receive('/a', '{}', {}, 'unknown.example')).rejects.toMatchObject({ code: 'ingest_host_unknown' });
    await expect(receive('/a', '{}', { 'x-target-url': 'https://example.com' })).rejects.toMatchObject({
      code: 'target_override_disabled',
    });
    const override = service(true).receive({
      host: 'relay.example.com',
      path: '/a',
      message: message('{}', { 'x-target-url': 'http://127.0.0.1/' }),
    });
    await expect(override).rejects.toMatchObject({ code: 'target_url_rejected' });
    expect(await events()).toBe(before);
  });

  it('refuses bodies that are not JSON or over the limit', async () => {
    const before = await events();
    await expect(receive('/a', 'not json')).rejects.toMatchObject({ code: 'invalid_json' });
    await expect(receive('/a', JSON.stringify({ big: 'x'.repeat(100) }))).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    await expect(receive('/a', '{}', { 'content-type': 'text/plain' })).rejects.toMatchObject({
      code: 'unsupported_media_type',
    });
    expect(await events()).toBe(before);
  });

  it('refuses invalid UTF-8 and payloads nested deeper than the limit, storing nothing', async () => {
    const before = await events();
    await expect(receive('/a', Buffer.from('{"a":"\xff"}', 'latin1'))).rejects.toMatchObject({
      code: 'invalid_encoding',
    });
    await expect(
      receive('/a', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d])),
    ).rejects.toMatchObject({ code: 'invalid_encoding' });
    await expect(receive('/a', '[[[[[1]]]]]')).rejects.toMatchObject({ code: 'payload_too_deep' });
    expect(await events()).toBe(before);
    // At the limit, and brackets inside strings do not count.
    await expect(receive('/a', '[[[{"a":"[[[[[["}]]]')).resolves.toMatchObject({ status: 'queued' });
    await expect(receive('/a', '{"é":"\\u0000ü"}')).resolves.toMatchObject({ status: 'queued' });
  });
});

describe('ingest group commit', () => {
  it('stores every good row of a batch the database refuses because of one row', async () => {
    const batched = createIngestService({
      events: store.repositories().events,
      queue: { enqueue: async () => {} } as unknown as DeliveryQueue,
      logger: pino({ level: 'silent' }),
      batch: { maxSize: 50, maxWaitMs: 20 },
    });
    const webhook = (headers: Record<string, string>) => ({
      orgId: DEFAULT_ORGANIZATION_ID,
      source: 'batch',
      body: Buffer.from('{"n":1}'),
      headers,
    });
    // A header Postgres cannot store (jsonb refuses \u0000); Node's HTTP parser refuses it on the wire, so
    // only a caller inside the process can submit one.
    const results = await Promise.allSettled(
      Array.from({ length: 21 }, (_, i) => batched.accept(webhook(i === 10 ? { 'x-poison': 'a\u0000b' } : {}))),
    );
    await batched.drain();
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(results[10]!.status).toBe('rejected');
    const ids = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(await store.db.prisma.event.count({ where: { id: { in: ids } } })).toBe(20);
  });
});
