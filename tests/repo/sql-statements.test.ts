import { randomBytes } from 'node:crypto';
import { adminQuery, databaseUrl } from '@relay/test-support';
import pg from 'pg';
import { splitSqlStatements } from '../../scripts/lib/sql-statements.mjs';
import { createMigrationProject, SCHEMA_HEADER, type MigrationProject } from './migration-project';

describe('migration statements', () => {
  it.each<[string, string, string[]]>([
    ['plain statements', 'SELECT 1;\nSELECT 2;', ['SELECT 1', 'SELECT 2']],
    ['no final semicolon', 'SELECT 1;\n  SELECT 2  \n', ['SELECT 1', 'SELECT 2']],
    ['a string with a semicolon', "SELECT 'a;b';SELECT 2", ["SELECT 'a;b'", 'SELECT 2']],
    ['a doubled quote', "SELECT 'it''s; here';SELECT 2", ["SELECT 'it''s; here'", 'SELECT 2']],
    [
      'an E string with an escaped quote',
      String.raw`SELECT E'a\';b';SELECT 2`,
      [String.raw`SELECT E'a\';b'`, 'SELECT 2'],
    ],
    ['a quoted identifier', 'SELECT 1 AS "x;y";SELECT 2', ['SELECT 1 AS "x;y"', 'SELECT 2']],
    [
      'a DO block',
      'DO $$ BEGIN PERFORM 1; PERFORM 2; END $$;SELECT 2',
      ['DO $$ BEGIN PERFORM 1; PERFORM 2; END $$', 'SELECT 2'],
    ],
    [
      'a tagged dollar quote holding $$',
      'CREATE FUNCTION f() RETURNS text LANGUAGE sql AS $fn$ SELECT $$a;b$$ $fn$;SELECT 2',
      ['CREATE FUNCTION f() RETURNS text LANGUAGE sql AS $fn$ SELECT $$a;b$$ $fn$', 'SELECT 2'],
    ],
    ['a parameter is no dollar quote', 'SELECT $1;SELECT $2', ['SELECT $1', 'SELECT $2']],
    ['a line comment', '-- one; two\nSELECT 1;SELECT 2', ['-- one; two\nSELECT 1', 'SELECT 2']],
    ['nested block comments', 'SELECT /* a; /* b; */ c; */ 1;SELECT 2', ['SELECT /* a; /* b; */ c; */ 1', 'SELECT 2']],
    ['pieces of only comments are left out', 'SELECT 1;\n-- the end; really\n;  ;', ['SELECT 1']],
  ])('%s', (_name, script, statements) => {
    expect(splitSqlStatements(script)).toEqual(statements);
  });
});

// The runner itself (scripts/db.mjs) on a migration that the adapter's own split-at-every-";" broke: a DO block,
// a function body and strings with ";" inside; a SET that the next statement must see (one connection); and an
// index built CONCURRENTLY (no transaction around the migration). Run from a copy of the runner whose only
// migration is this one, against an empty database of its own.
const MIGRATION = String.raw`CREATE TABLE probe (id int PRIMARY KEY, note text);
DO $$
BEGIN
  IF current_setting('server_version_num')::int < 150000 THEN
    RAISE EXCEPTION 'Postgres 15 or later';
  END IF;
  INSERT INTO probe VALUES (1, 'from a DO block; with a semicolon');
END
$$;
CREATE FUNCTION probe_count() RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE n bigint;
BEGIN
  SELECT count(*) INTO n FROM probe;
  RETURN n;
END
$fn$;
INSERT INTO probe VALUES (2, 'it''s; quoted'), (3, E'back\'slash; escaped');
/* a block comment; /* nested; */ still a comment; */
SET lock_timeout = '4321ms';
INSERT INTO probe VALUES (4, current_setting('lock_timeout'));
CREATE INDEX CONCURRENTLY probe_note_idx ON probe (note);
`;

describe('scripts/db.mjs migrate', () => {
  let project: MigrationProject;
  const name = `relay_runner_${randomBytes(5).toString('hex')}`;

  beforeAll(async () => {
    project = await createMigrationProject(SCHEMA_HEADER, MIGRATION);
    await adminQuery(`CREATE DATABASE "${name}"`);
  });

  afterAll(async () => {
    await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await project?.remove();
  });

  it('applies DO blocks, function bodies and quoted semicolons, on one connection, outside a transaction', async () => {
    const { stdout } = await project.db(['migrate'], databaseUrl(name));
    expect(stdout).toContain('applied: 20260101000000_probe');
    const client = new pg.Client({ connectionString: databaseUrl(name) });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT id, note FROM probe ORDER BY id');
      expect(rows).toEqual([
        { id: 1, note: 'from a DO block; with a semicolon' },
        { id: 2, note: "it's; quoted" },
        { id: 3, note: "back'slash; escaped" },
        { id: 4, note: '4321ms' },
      ]);
      expect((await client.query('SELECT probe_count()::int AS n')).rows).toEqual([{ n: 4 }]);
      const index = await client.query("SELECT indisvalid FROM pg_index WHERE indexrelid = 'probe_note_idx'::regclass");
      expect(index.rows).toEqual([{ indisvalid: true }]);
      const applied = await client.query('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL');
      expect(applied.rows).toEqual([{ migration_name: '20260101000000_probe' }]);
    } finally {
      await client.end();
    }
  }, 120_000);
});
