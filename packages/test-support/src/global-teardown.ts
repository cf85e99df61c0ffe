import pg from 'pg';
import { BASE_DATABASE_URL, TEMPLATE_DATABASE, TEST_DATABASE_PREFIX } from './test-database';

export default async function globalTeardown(): Promise<void> {
  const client = new pg.Client({ connectionString: BASE_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `${TEST_DATABASE_PREFIX}%`,
    ]);
    for (const row of rows) await client.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    await client.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
