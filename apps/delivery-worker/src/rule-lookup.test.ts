import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { createDatabase, createRuleRepository, type Database } from '@relay/db';
import { createTestDatabase, type TestDatabase } from '@relay/test-support';
import { createRuleLookup } from './rule-lookup';

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = createDatabase({ url: testDb.url, poolSize: 2 });
});
afterAll(async () => {
  await db.close();
  await testDb.drop();
});

describe('rule lookup', () => {
  it('reads a rule once per cacheMs, then again, and never caches a failed read', async () => {
    const repository = createRuleRepository(db.prisma);
    const created = await repository.create(DEFAULT_ORGANIZATION_ID, { source: 'cached', targetUrl: 'https://a.test' });
    if (!created.ok) throw new Error('not created');
    const id = created.rule.id;
    let clock = 0;
    let reads = 0;
    let failNext = false;
    const counting = {
      findById: (orgId: typeof DEFAULT_ORGANIZATION_ID, ruleId: string) => {
        reads += 1;
        if (failNext) {
          failNext = false;
          return Promise.reject(new Error('database down'));
        }
        return repository.findById(orgId, ruleId);
      },
    };
    const rules = createRuleLookup(counting, { cacheMs: 1_000, now: () => clock });

    expect(await rules(DEFAULT_ORGANIZATION_ID, null)).toBeNull();
    expect((await rules(DEFAULT_ORGANIZATION_ID, id))?.targetUrl).toBe('https://a.test');
    await repository.update(DEFAULT_ORGANIZATION_ID, id, { targetUrl: 'https://b.test' });
    expect((await rules(DEFAULT_ORGANIZATION_ID, id))?.targetUrl).toBe('https://a.test');
    expect(reads).toBe(1);

    clock = 1_001;
    failNext = true;
    await expect(rules(DEFAULT_ORGANIZATION_ID, id)).rejects.toThrow('database down');
    expect((await rules(DEFAULT_ORGANIZATION_ID, id))?.targetUrl).toBe('https://b.test');
    expect(reads).toBe(3);
  });

  it('forgets a rule it is told has changed: the next read is fresh, however long the cache', async () => {
    const repository = createRuleRepository(db.prisma);
    const created = await repository.create(DEFAULT_ORGANIZATION_ID, { source: 'told', targetUrl: 'https://a.test' });
    if (!created.ok) throw new Error('not created');
    const id = created.rule.id;
    const rules = createRuleLookup(repository, { cacheMs: 60_000 });
    expect((await rules(DEFAULT_ORGANIZATION_ID, id))?.health).toBe('healthy');
    await db.pool.query(`UPDATE providers SET health = 'unhealthy' WHERE id = $1`, [id]);
    expect((await rules(DEFAULT_ORGANIZATION_ID, id))?.health).toBe('healthy');
    rules.forget(DEFAULT_ORGANIZATION_ID, id);
    expect((await rules(DEFAULT_ORGANIZATION_ID, id))?.health).toBe('unhealthy');
  });
});
