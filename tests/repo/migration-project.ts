import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

// The generator and datasource blocks of the real schema, so a probe schema is read as the real one is.
export const SCHEMA_HEADER = `generator client {
  provider     = "prisma-client"
  output       = "./generated"
  moduleFormat = "cjs"
}

datasource db {
  provider = "postgresql"
}
`;

export interface MigrationProject {
  dir: string;
  /** Runs `node scripts/db.mjs <args>` of the copy against `databaseUrl`. */
  db(args: string[], databaseUrl: string): Promise<{ stdout: string; stderr: string }>;
  writeSchema(schema: string): Promise<void>;
  remove(): Promise<void>;
}

/**
 * A throw-away copy of the project's migration runner (scripts/db.mjs and what it imports) with a schema and
 * one migration of the test's own, so the runner and its drift check are tested on SQL the real migrations
 * do not have yet. node_modules is the checkout's, by a symlink.
 */
export async function createMigrationProject(schema: string, migration: string): Promise<MigrationProject> {
  const dir = await mkdtemp(path.join(tmpdir(), 'relay-migrations-'));
  await mkdir(path.join(dir, 'scripts/lib'), { recursive: true });
  await mkdir(path.join(dir, 'prisma/migrations/20260101000000_probe'), { recursive: true });
  for (const file of ['package.json', 'scripts/db.mjs', 'scripts/lib/sql-statements.mjs']) {
    await copyFile(path.join(ROOT, file), path.join(dir, file));
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const writeSchema = (text: string) => writeFile(path.join(dir, 'prisma/schema.prisma'), text);
  await writeSchema(schema);
  await writeFile(path.join(dir, 'prisma/migrations/migration_lock.toml'), 'provider = "postgresql"\n');
  await writeFile(path.join(dir, 'prisma/migrations/20260101000000_probe/migration.sql'), migration);
  return {
    dir,
    db: (args, databaseUrl) =>
      run(process.execPath, [path.join(dir, 'scripts/db.mjs'), ...args], {
        cwd: dir,
        env: { ...process.env, DATABASE_URL: databaseUrl },
      }),
    writeSchema,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
