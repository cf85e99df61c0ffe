import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '@relay/test-support';
import pg from 'pg';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

describe('migrations', () => {
  it('schema.prisma and prisma/migrations agree (no drift)', async () => {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'scripts/db.mjs'), 'check'], { cwd: ROOT });
    expect(stdout).toContain('no drift');
  });

  // @prisma/adapter-pg's own executeScript splits a script at every ";", comments included. scripts/db.mjs runs
  // migrations with a splitter that knows comments and dollar-quoted bodies (scripts/lib/sql-statements.mjs); the
  // rule stays so a comment never decides where a statement ends.
  it('no migration has a ";" inside a comment', () => {
    const dir = path.join(ROOT, 'prisma/migrations');
    const offending = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) =>
        readFileSync(path.join(dir, d.name, 'migration.sql'), 'utf8')
          .split('\n')
          .filter((line) => /--.*;/.test(line))
          .map((line) => `${d.name}: ${line}`),
      );
    expect(offending).toEqual([]);
  });

  it('a migrated database has the default organization and the listing indexes', async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const orgs = await client.query('SELECT slug FROM organizations');
      expect(orgs.rows).toEqual([{ slug: 'default' }]);
      const indexes = await client.query("SELECT indexdef FROM pg_indexes WHERE tablename = 'events'");
      const defs = indexes.rows.map((r: { indexdef: string }) => r.indexdef).join('\n');
      expect(defs).toMatch(/\(organization_id, created_at DESC\)/);
      expect(defs).toMatch(/\(organization_id, source, created_at DESC\)/);
      // Search has its own tables: recording a delivery outcome (an update of events) never touches its index.
      expect(defs).not.toMatch(/gin/);
      // Nor does any other index hold a column an outcome changes (a HOT update): the lookups by status read
      // event_open.
      expect(defs).not.toMatch(/status|next_attempt_at|updated_at/);
      const open = await client.query("SELECT indexdef FROM pg_indexes WHERE tablename = 'event_open'");
      expect(open.rows.map((r: { indexdef: string }) => r.indexdef).join('\n')).toMatch(
        /\(organization_id, status, created_at DESC\)/,
      );
      const search = await client.query("SELECT indexdef FROM pg_indexes WHERE tablename = 'event_search_chunks'");
      expect(search.rows.map((r: { indexdef: string }) => r.indexdef).join('\n')).toMatch(/gin \(keys\)/);
      const applied = await client.query(
        'SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL',
      );
      expect(applied.rows[0].n).toBeGreaterThan(0);
    } finally {
      await client.end();
      await db.drop();
    }
  });
});
