import { ownPostgres, uniqueQueuePrefix, type OwnPostgres } from '@relay/test-support';
import { pino } from 'pino';
import supertest from 'supertest';
import { parseApiConfig } from '../../apps/api/src/config';
import { createApiRuntime, type ApiRuntime } from '../../apps/api/src/runtime';
import { REDIS_URL } from './harness';

// Postgres stopped while the api runs: the organization of the host is still in its cache, so each webhook
// reaches the rule lookup of its source (not cached for a source never seen) or the insert. Either way the
// answer is 503 database_unavailable, which senders retry, never a 500.
describe('ingest with Postgres stopped', () => {
  let postgres: OwnPostgres | undefined;
  let api: ApiRuntime | undefined;
  beforeAll(async () => {
    postgres = await ownPostgres();
    await postgres.start();
    await postgres.migrate();
    api = createApiRuntime(
      parseApiConfig({
        DATABASE_URL: postgres.url,
        REDIS_URL,
        QUEUE_PREFIX: uniqueQueuePrefix(),
        LOG_LEVEL: 'silent',
        INGEST_BATCH_WAIT_MS: '1',
        // The host stays resolved for the whole test, as it does for the minutes after a database fails.
        INGEST_HOST_CACHE_MS: '300000',
      }),
      pino({ level: 'silent' }),
    );
    await api.start();
    await supertest(api.app).post('/known').set('content-type', 'application/json').send('{}').expect(202);
    await postgres.stop();
  }, 120_000); // initdb and the migrations take a while on a busy machine

  afterAll(async () => {
    await api?.close();
    await postgres?.remove();
  });

  const post = (source: string) =>
    supertest(api!.app).post(`/${source}`).set('content-type', 'application/json').send('{"a":1}');

  it('answers 503 database_unavailable for a source not seen before (its rule lookup fails)', async () => {
    const res = await post('never-seen').expect(503);
    expect(res.body.code).toBe('database_unavailable');
  });

  it('answers 503 database_unavailable for a source whose rule lookup is cached (the insert fails)', async () => {
    const res = await post('known').expect(503);
    expect(res.body.code).toBe('database_unavailable');
  });
});
