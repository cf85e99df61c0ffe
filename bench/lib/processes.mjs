// Child processes of a benchmark run: started, waited for, measured (peak RSS) and stopped.
import { fork, spawn } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Forks a helper that reports `{type: 'ready', ...}` over IPC; resolves with that message. */
export function forkReady(script, env = {}) {
  const child = fork(script, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = new Promise((resolve, reject) => {
    child.once('message', (msg) => resolve(msg));
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
  });
  return ready.then((msg) => ({ child, msg }));
}

/** Sends an IPC request and waits for the answer of the same type. */
export function ask(child, type) {
  return new Promise((resolve) => {
    const onMessage = (msg) => {
      if (msg.type !== type) return;
      child.off('message', onMessage);
      resolve(msg);
    };
    child.on('message', onMessage);
    child.send({ type });
  });
}

// The same V8 flags as `pnpm start` and docker compose. A small young generation keeps RSS low, and a
// 128 MB old space makes V8 collect instead of growing: the live heaps are small (api 45-70 MB, worker
// ~20 MB), and unbounded V8 let the api reach ~300 MB of mostly garbage (docs/performance.md). The api
// refuses to start when its ingest settings could need more (apps/api/src/heap-budget.ts). Under a cap below
// 256 MB V8 starts the next full collection when the old space reaches only 1.3x what the last one kept (api:
// ~48 -> ~62 MB, a full collection every ~160 ms at saturation, as request objects outlive two scavenges and
// are promoted); --heap-growing-percent lets it reach more. On Node 20, 75 (1.75x) cost the api about a fifth
// less CPU per webhook for ~15 MB more RSS (docs/performance.md, section 7); on Node 24, 50 costs what 75 did for
// 12-15 MB less peak RSS, and no flag ~10 % more CPU ("Heap growth on Node 24"). The worker measured no gain from it.
export const NODE_FLAGS = {
  api: ['--max-semi-space-size=4', '--max-old-space-size=128', '--heap-growing-percent=50'],
  worker: ['--max-semi-space-size=8', '--max-old-space-size=128'],
};

/** Starts a production bundle; its logs (stdout) are dropped unless BENCH_LOG_DIR names a folder for them. */
export function startNode(entry, env, extraFlags = []) {
  const worker = entry.includes('delivery-worker');
  // BENCH_WORKER_FLAGS adds node flags to the worker (e.g. --cpu-prof --cpu-prof-dir=DIR for a profile of a run).
  const extra = worker ? (process.env.BENCH_WORKER_FLAGS?.split(' ').filter(Boolean) ?? []) : [];
  const flags = [...(worker ? NODE_FLAGS.worker : NODE_FLAGS.api), ...extraFlags, ...extra];
  const logDir = process.env.BENCH_LOG_DIR;
  const stdout = logDir
    ? openSync(path.join(logDir, `${path.basename(path.dirname(path.dirname(entry)))}-${Date.now()}.log`), 'a')
    : 'ignore';
  // BENCH_WORKER_NICE starves the worker on a busy machine (a reproduction of load, not a measurement setting).
  const nice = worker ? process.env.BENCH_WORKER_NICE : undefined;
  const [command, args] = nice
    ? ['nice', ['-n', nice, process.execPath, ...flags, entry]]
    : [process.execPath, [...flags, entry]];
  const child = spawn(command, args, {
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', stdout, 'inherit'],
  });
  child.on('error', (err) => console.error(`${entry}: ${err.message}`));
  return child;
}

export async function waitForHttp(url, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Peak resident set size of a live process, in MB (Linux VmHWM). */
/**
 * Starts a new peak: writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+), so peakRssMb then reads
 * the peak since this call. Answers false where the kernel refuses it (the peak then stays the process' own).
 */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** A figure of /proc/<pid>/status in MB, or null once the process is gone. */
function statusMb(pid, field) {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * The part of a process's RSS that is mapped files, mostly the node binary's pages. It is shared between processes
 * and depends on how the binary came into the page cache: on this kernel (ext4's large folios), a binary read through
 * once before it runs (an install, a copy, a checksum) maps ~60 MB, one paged in by running it ~35 MB
 * (docs/performance.md, "RSS: the node binary's pages").
 */
export const mappedFilesMb = (pid) => statusMb(pid, 'RssFile');

export const peakRssMb = (pid) => statusMb(pid, 'VmHWM');

export async function stop(child, signal = 'SIGTERM', timeoutMs = 10_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** Waits until the target has `count` distinct events, or nothing new arrived for `idleMs`. */
export async function waitForReceipts(target, count, idleMs = 30_000) {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const stats = await ask(target, 'stats');
    if (stats.unique >= count) return stats;
    if (stats.unique !== last) {
      last = stats.unique;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > idleMs) return stats;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
