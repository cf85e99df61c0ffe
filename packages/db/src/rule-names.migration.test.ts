import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { useTestDatabase } from '@relay/test-support';
import { createDatabase, type Database } from './database';

const MIGRATION = path.join(__dirname, '../../../prisma/migrations/20261126101114_rule_and_hook_names/migration.sql');
const ORG = DEFAULT_ORGANIZATION_ID;

const database = useTestDatabase((url) => createDatabase({ url, poolSize: 2 }));
let db: Database;

beforeAll(async () => {
  db = database();
  // Back to the schema before the migration: rules and hooks without names.
  await db.pool.query('ALTER TABLE providers DROP COLUMN name; ALTER TABLE hooks DROP COLUMN name');
});

// Existing rows get the names new ones get by default, in creation order, unique where they must be.
describe('migration: rule and hook names', () => {
  it('names rules after their source and hooks after their trigger, suffixed in creation order', async () => {
    const { rows: orgs } = await db.pool.query<{ id: string }>(
      "INSERT INTO organizations (id, slug, name, updated_at) VALUES (gen_random_uuid(), 'b', 'B', now()) RETURNING id",
    );
    const other = orgs[0]!.id;
    const rule = async (org: string, source: string, minutesAgo: number) =>
      (
        await db.pool.query<{ id: string }>(
          `INSERT INTO providers (id, organization_id, source, target_url, active, created_at, updated_at)
           VALUES (gen_random_uuid(), $1, $2, 'https://t.test/', false, now() - make_interval(mins => $3), now())
           RETURNING id`,
          [org, source, minutesAgo],
        )
      ).rows[0]!.id;
    // Three rules of one source, and a source that is itself what the second would be called.
    const first = await rule(ORG, 'github', 50);
    const second = await rule(ORG, 'github', 40);
    const third = await rule(ORG, 'github', 30);
    const literal = await rule(ORG, 'github-2', 45);
    const elsewhere = await rule(other, 'github', 10);
    const hook = async (ruleId: string, org: string, trigger: string, minutesAgo: number) =>
      (
        await db.pool.query<{ id: string }>(
          `INSERT INTO hooks (id, organization_id, provider_id, target_url, trigger, created_at, updated_at)
           VALUES (gen_random_uuid(), $1, $2, 'https://h.test/', $3, now() - make_interval(mins => $4), now())
           RETURNING id`,
          [org, ruleId, trigger, minutesAgo],
        )
      ).rows[0]!.id;
    const h1 = await hook(first, ORG, 'provider_failed', 9);
    const h2 = await hook(first, ORG, 'provider_failed', 8);
    const h3 = await hook(first, ORG, 'provider_succeeded', 7);
    const h4 = await hook(second, ORG, 'provider_failed', 6);

    await db.pool.query(readFileSync(MIGRATION, 'utf8'));

    const names = async (table: string) =>
      new Map(
        (await db.pool.query<{ id: string; name: string }>(`SELECT id, name FROM ${table}`)).rows.map((r) => [
          r.id,
          r.name,
        ]),
      );
    const rules = await names('providers');
    expect(rules.get(first)).toBe('github');
    expect(rules.get(literal)).toBe('github-2');
    expect(rules.get(second)).toBe('github-3');
    expect(rules.get(third)).toBe('github-4');
    expect(rules.get(elsewhere)).toBe('github');
    const hooks = await names('hooks');
    expect([hooks.get(h1), hooks.get(h2), hooks.get(h3), hooks.get(h4)]).toEqual([
      'provider_failed',
      'provider_failed-2',
      'provider_succeeded',
      'provider_failed',
    ]);
    // The names are required and unique from now on.
    await expect(rule(ORG, 'x', 1)).rejects.toThrow(/null value in column "name"/);
    await expect(db.pool.query("UPDATE providers SET name = 'github' WHERE id = $1", [second])).rejects.toThrow(
      /providers_organization_id_name_key/,
    );
  });
});
