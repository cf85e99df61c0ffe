import pg from 'pg';

const RUN_DATABASE = /^relay_(?:tpl|t)_(\d+)(?:_|$)/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but is someone else's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Drops the databases of earlier jest runs on this machine whose process is gone (a run killed before its
 * teardown leaves its template and copies behind). A run still going keeps its own: its pid is alive.
 */
export async function dropStaleRunDatabases(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'relay\\_tpl\\_%' OR datname LIKE 'relay\\_t\\_%'",
    );
    const stale = rows
      .map((r) => r.datname)
      .filter((name) => {
        const pid = Number(RUN_DATABASE.exec(name)?.[1]);
        return Number.isInteger(pid) && pid > 0 && !alive(pid);
      });
    for (const name of stale) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    return stale;
  } finally {
    await client.end();
  }
}
