import { execFile } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { adminQuery, databaseUrl } from '@relay/test-support';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

export interface UpgradeProject {
  /** The database, migrated up to the upgrade (not included). */
  url: string;
  /** Adds the upgrade's migration to the copy and runs the runner, as compose's one-shot `migrate` does. */
  upgrade(): Promise<{ stdout: string; stderr: string }>;
  remove(): Promise<void>;
}

/**
 * For the tests of an online upgrade (docs/partitioning.md): a throw-away copy of the migration runner with every
 * migration before `upgrade`, and a database of its own migrated by it, as an install of the previous version is.
 */
export async function createUpgradeProject(upgrade: string, label: string): Promise<UpgradeProject> {
  const dir = await mkdtemp(path.join(tmpdir(), `relay-${label}-`));
  await mkdir(path.join(dir, 'scripts/lib'), { recursive: true });
  await mkdir(path.join(dir, 'prisma/migrations'), { recursive: true });
  for (const file of ['package.json', 'scripts/db.mjs', 'scripts/lib/sql-statements.mjs', 'prisma/schema.prisma']) {
    await copyFile(path.join(ROOT, file), path.join(dir, file));
  }
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const migrations = path.join(ROOT, 'prisma/migrations');
  for (const entry of await readdir(migrations)) {
    if (entry < upgrade || entry === 'migration_lock.toml') {
      await cp(path.join(migrations, entry), path.join(dir, 'prisma/migrations', entry), { recursive: true });
    }
  }
  const name = `relay_${label.replaceAll('-', '_')}_${process.pid}_${Date.now()}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = databaseUrl(name);
  const migrate = () =>
    run(process.execPath, [path.join(dir, 'scripts/db.mjs'), 'migrate'], {
      cwd: dir,
      env: { ...process.env, DATABASE_URL: url },
    });
  await migrate();
  return {
    url,
    async upgrade() {
      await cp(path.join(migrations, upgrade), path.join(dir, 'prisma/migrations', upgrade), { recursive: true });
      return migrate();
    },
    async remove() {
      await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
