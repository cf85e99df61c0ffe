// One build at a time per checkout: `pnpm start:api` and `pnpm start:worker` (or two workers, the README's way
// to scale) started together would otherwise write the same files at once, and a process could start from a
// half-written bundle. The lock is a file created exclusively ('wx') holding its builder's pid.
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

// A lock file left empty this long was never finished by a builder that died between creating and writing it.
const EMPTY_LOCK_STALE_MS = 10_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** The pid in the lock file; null when it is gone, undefined while it is still being written. */
function holderOf(file) {
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (text !== '') return Number(text);
    return Date.now() - statSync(file).mtimeMs > EMPTY_LOCK_STALE_MS ? -1 : undefined;
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw error;
  }
}

function tryAcquire(file) {
  try {
    const fd = openSync(file, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if (error.code === 'EEXIST') return false;
    throw error;
  }
}

// A builder killed mid-build (Ctrl-C) leaves its lock: a dead pid's lock is moved aside (a rename, so only
// one waiter takes it over) and removed.
function removeStale(file) {
  const aside = `${file}.${process.pid}.stale`;
  try {
    renameSync(file, aside);
    rmSync(aside, { force: true });
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
}

/** Runs `work` holding the lock at `file`; waits (and says so once on stderr) while another build holds it. */
export async function withBuildLock(file, work, { pollMs = 100, log = (line) => console.error(line) } = {}) {
  mkdirSync(path.dirname(file), { recursive: true });
  let announced = false;
  while (!tryAcquire(file)) {
    const holder = holderOf(file);
    if (holder === null) continue;
    if (holder !== undefined && (holder === -1 || !alive(holder))) {
      removeStale(file);
      continue;
    }
    if (!announced) log(`waiting for another build to finish (pid ${holder ?? '?'}, lock ${file})`);
    announced = true;
    await sleep(pollMs);
  }
  try {
    return await work();
  } finally {
    rmSync(file, { force: true });
  }
}
