import { asOrgId, DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createDeliveryQueue, createRedisConnection } from '@relay/queue';
import { TEST_REDIS_URL, uniqueQueuePrefix } from '@relay/test-support';
import pino from 'pino';
import { useServiceDatabase } from '../service-test-kit';
import { createIngestService } from './ingest.service';

const database = useServiceDatabase();
const redis = createRedisConnection(TEST_REDIS_URL, 'producer');
afterAll(() => redis.quit());

function ingestWith(batch: { maxBytes?: number; maxWaitMs?: number }) {
  const sizes: number[] = [];
  const service = createIngestService({
    events: database.repositories().events,
    queue: createDeliveryQueue({ connection: redis, prefix: uniqueQueuePrefix() }),
    logger: pino({ level: 'silent' }),
    batch: { maxSize: 100, maxWaitMs: 0, maxInFlight: 1, ...batch },
    onBatch: (size) => sizes.push(size),
  });
  const webhook = (bytes: number) => ({
    orgId: DEFAULT_ORGANIZATION_ID,
    source: 'sized',
    body: Buffer.from(JSON.stringify({ pad: 'x'.repeat(bytes - 10) })),
    headers: {},
  });
  return { service, sizes, webhook };
}

describe('ingest batches bounded by bytes', () => {
  it('splits concurrent webhooks into batches of at most INGEST_BATCH_MAX_BYTES, and stores every one', async () => {
    const { service, sizes, webhook } = ingestWith({ maxBytes: 64 * 1024 });
    // Twelve 30 KB payloads: at most two fit a 64 KiB batch; a 200 KB one is stored alone.
    const ids = await Promise.all(
      [...Array.from({ length: 12 }, () => webhook(30_000)), webhook(200_000)].map((w) => service.accept(w)),
    );
    await service.drain();
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(13);
    const stored = await database.db.pool.query('SELECT count(*)::int AS n FROM events WHERE id = ANY($1::uuid[])', [
      ids,
    ]);
    expect(stored.rows[0].n).toBe(13);
  });

  it('without a byte bound, the same webhooks gather into larger batches', async () => {
    const { service, sizes, webhook } = ingestWith({});
    await Promise.all(Array.from({ length: 12 }, () => service.accept(webhook(30_000))));
    await service.drain();
    expect(Math.max(...sizes)).toBeGreaterThan(2);
  });
});

describe('a webhook whose organization is deleted while it is stored', () => {
  it('is refused as not_found, and the other webhooks of its batch are stored', async () => {
    // A batch gathers for a moment, so both webhooks go into one insert.
    const { service, webhook } = ingestWith({ maxWaitMs: 50 });
    const gone = await database.db.prisma.organization.create({ data: { slug: 'gone-while-ingesting', name: 'x' } });
    // The organization was found when the request began; it is deleted before the batched insert.
    await database.db.prisma.organization.delete({ where: { id: gone.id } });
    const [ours, theirs] = await Promise.allSettled([
      service.accept(webhook(100)),
      service.accept({ ...webhook(100), orgId: asOrgId(gone.id) }),
    ]);
    await service.drain();
    expect(theirs).toMatchObject({ status: 'rejected', reason: { code: 'not_found' } });
    expect(ours.status).toBe('fulfilled');
    const id = (ours as PromiseFulfilledResult<string>).value;
    expect((await database.db.pool.query('SELECT 1 FROM events WHERE id = $1', [id])).rowCount).toBe(1);
  });
});
