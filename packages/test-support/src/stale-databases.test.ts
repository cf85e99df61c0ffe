import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { dropStaleRunDatabases } from './stale-databases';
import { adminQuery, BASE_DATABASE_URL } from './test-database';

async function exists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: BASE_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

describe('stale run databases', () => {
  it("drops a dead run's template and copies, and keeps a live run's", async () => {
    // A pid that surely ended: a child process that has exited.
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const deadTemplate = `relay_tpl_${dead}`;
    const deadCopy = `relay_t_${dead}_abc123`;
    const liveCopy = `relay_t_${process.pid}_stale_test`;
    for (const name of [deadTemplate, deadCopy, liveCopy]) await adminQuery(`CREATE DATABASE "${name}"`);
    try {
      const dropped = await dropStaleRunDatabases(BASE_DATABASE_URL);
      expect(dropped).toEqual(expect.arrayContaining([deadTemplate, deadCopy]));
      expect([await exists(deadTemplate), await exists(deadCopy), await exists(liveCopy)]).toEqual([
        false,
        false,
        true,
      ]);
    } finally {
      await adminQuery(`DROP DATABASE IF EXISTS "${liveCopy}" WITH (FORCE)`);
    }
  });
});
