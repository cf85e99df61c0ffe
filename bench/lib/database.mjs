// The benchmark's own databases and queue keys: one fresh database per run, dropped afterwards.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';

export let DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** Points every later run at another server (the profile's own cluster, bench/lib/pg-cluster.mjs). */
export function useDatabaseServer(url) {
  DATABASE_URL = url;
}
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function dbUrl(name) {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function admin(sql) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function query(url, sql, params = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** A new, migrated database; returns its URL. */
export async function freshDatabase(root, name) {
  await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin(`CREATE DATABASE "${name}"`);
  const url = dbUrl(name);
  execFileSync(process.execPath, [path.join(root, 'scripts/db.mjs'), 'migrate'], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: 'ignore',
  });
  return url;
}

// The relay's keys: `<prefix>:…`, and the hash-tagged ones, `{<prefix>:dlv:0}:…` (queues) and `{<prefix>:pace:…}`.
export async function deleteKeys(prefix) {
  const redis = new Redis(REDIS_URL);
  for (const pattern of [`${prefix}:*`, `{${prefix}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  redis.disconnect();
}
