// The page cache's share of a set of relations, and its eviction. `pnpm bench --retention` fills a day and drops it
// minutes later, so every page of it is cached; a day past retention on an install whose history is larger than
// memory is not cached any more. `--cold` measures that case by evicting the day's files first (on the standard
// machine it changed the step little: what the removal of the files waits for there is the disk's online discard,
// docs/performance.md). Reads the files of the data directory (util-linux's fincore; GNU dd's iflag=nocache, which
// advises the kernel to drop a file's cached pages), so it needs the bench to run beside its Postgres as a user who
// can read them.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

// Every file of the relations' main forks, with their indexes, TOAST tables and TOAST indexes.
const FILES = `
WITH r AS (SELECT oid, reltoastrelid FROM pg_class WHERE relname = ANY($1::text[])),
all_rels AS (
  SELECT oid FROM r
  UNION SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT oid FROM r)
  UNION SELECT reltoastrelid FROM r WHERE reltoastrelid <> 0
  UNION SELECT indexrelid FROM pg_index WHERE indrelid IN (SELECT reltoastrelid FROM r))
SELECT pg_relation_filepath(oid) AS file, pg_relation_size(oid) AS bytes FROM all_rels`;

/** The relations' files (every 1 GB segment) and their size in MB. */
export async function relationFiles(pool, names) {
  const dataDirectory = (await pool.query('SHOW data_directory')).rows[0].data_directory;
  const { rows } = await pool.query(FILES, [names]);
  const files = [];
  for (const { file } of rows.filter((r) => r.file !== null)) {
    const base = path.join(dataDirectory, file);
    for (let segment = 0; existsSync(segment === 0 ? base : `${base}.${segment}`); segment++)
      files.push(segment === 0 ? base : `${base}.${segment}`);
  }
  const mb = rows.reduce((sum, r) => sum + Number(r.bytes), 0) / 1048576;
  if (files.length < rows.filter((r) => Number(r.bytes) > 0).length)
    throw new Error(
      `the relations' files are not readable here (${dataDirectory}): run beside Postgres as its owner or root`,
    );
  return { files, mb: Math.round(mb) };
}

/** MB of these files held in the page cache now. */
export function cachedMb(files) {
  if (files.length === 0) return 0;
  const out = execFileSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', ...files], { encoding: 'utf8' });
  const bytes = out
    .split('\n')
    .filter((line) => line.trim() !== '')
    .reduce((sum, line) => sum + Number(line.trim()), 0);
  return Math.round(bytes / 1048576);
}

/**
 * Drops the files' clean cached pages (the caller makes them clean first: CHECKPOINT writes Postgres' dirty buffers,
 * and the kernel then writes its own at the next fsync, which CHECKPOINT also makes).
 */
export function evict(files) {
  for (const file of files) execFileSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none']);
}
