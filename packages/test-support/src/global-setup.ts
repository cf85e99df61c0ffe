import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { adminQuery, databaseUrl, TEMPLATE_DATABASE } from './test-database';

// Builds the migrated template database once per run; test files copy it.
export default async function globalSetup(): Promise<void> {
  await adminQuery(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  const root = path.resolve(__dirname, '../../..');
  execFileSync(process.execPath, [path.join(root, 'scripts/db.mjs'), 'migrate'], {
    env: { ...process.env, DATABASE_URL: databaseUrl(TEMPLATE_DATABASE) },
    stdio: 'pipe',
  });
}
