import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { dropStaleRunDatabases } from './stale-databases';

// Builds the migrated template database once per run; test files copy it. The run id is set
// before the names are read so that jest's workers, which inherit the environment, agree on them.
export default async function globalSetup(): Promise<void> {
  process.env.RELAY_TEST_RUN_ID ??= String(process.pid);
  const { adminQuery, BASE_DATABASE_URL, databaseUrl, TEMPLATE_DATABASE } = await import('./test-database');
  await dropStaleRunDatabases(BASE_DATABASE_URL);
  await adminQuery(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  const root = path.resolve(__dirname, '../../..');
  execFileSync(process.execPath, [path.join(root, 'scripts/db.mjs'), 'migrate'], {
    env: { ...process.env, DATABASE_URL: databaseUrl(TEMPLATE_DATABASE) },
    stdio: 'pipe',
  });
}
