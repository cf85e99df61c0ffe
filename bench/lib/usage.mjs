// What one phase of a run costs, per event: CPU time of each process (from /proc, so waiting is
// told from working), Redis commands (INFO commandstats) and, on the profile's own cluster,
// Postgres statements with their time (pg_stat_statements).
import { readdirSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { query, REDIS_URL } from './database.mjs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function stat(pid) {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
    const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    // fields after the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14)
    return { comm, ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

/** CPU milliseconds used so far by one process. */
export const cpuMsOf = (pid) => (stat(pid)?.own ?? 0) * TICK_MS;

/**
 * CPU milliseconds used so far by each kind of thread of one process, by the thread's name: `MainThread`,
 * `WorkerThread` (worker_threads: the transform sandboxes), `V8Worker` (V8's helpers: concurrent GC and compiling),
 * the rest as `other`. A thread that has exited is no longer listed (the process's own figure still holds its CPU).
 */
export function cpuMsByThread(pid) {
  const kinds = { MainThread: 0, WorkerThread: 0, V8Worker: 0, other: 0 };
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return kinds;
  }
  for (const tid of tasks) {
    const task = stat(`${pid}/task/${tid}`);
    if (!task) continue;
    const kind = task.comm in kinds ? task.comm : 'other';
    kinds[kind] += task.own * TICK_MS;
  }
  return kinds;
}

/**
 * How often each kind of thread of one process went to sleep so far (voluntary context switches, by the thread's
 * name as cpuMsByThread): each sleep is ended by a wake-up, which another thread pays for when it posts to a
 * sleeping one (~90 µs of its CPU on this machine, docs/performance.md "Sixth round"), so a change that saves
 * messages shows here before it shows in CPU.
 */
export function sleepsByThread(pid) {
  const kinds = { MainThread: 0, WorkerThread: 0, V8Worker: 0, other: 0 };
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return kinds;
  }
  for (const tid of tasks) {
    let status;
    try {
      status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    } catch {
      continue;
    }
    const name = /^Name:\s*(.*)$/m.exec(status)?.[1] ?? '';
    const kind = name in kinds ? name : 'other';
    kinds[kind] += Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return kinds;
}

/** CPU milliseconds of every process with this name, with the exited children of the top ones. */
export function cpuMsByName(name) {
  const procs = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((pid) => ({ pid: Number(pid), ...stat(pid) }))
    .filter((p) => p.comm === name);
  const pids = new Set(procs.map((p) => p.pid));
  return procs.reduce((sum, p) => sum + (p.own + (pids.has(p.ppid) ? 0 : p.children)) * TICK_MS, 0);
}

async function nodeCommandStats(redis) {
  try {
    const info = await redis.info('commandstats');
    const stats = {};
    for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm))
      stats[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
    return stats;
  } finally {
    redis.disconnect();
  }
}

/** Commands run so far (INFO commandstats), summed over `nodes` (each `{host, port}`), else the shared Redis. */
async function redisCommandStats(nodes) {
  const each = await Promise.all(
    nodes
      ? nodes.map(({ host, port }) => nodeCommandStats(new Redis({ host, port })))
      : [nodeCommandStats(new Redis(REDIS_URL))],
  );
  const stats = {};
  for (const node of each)
    for (const [cmd, s] of Object.entries(node)) {
      const sum = (stats[cmd] ??= { calls: 0, usec: 0 });
      sum.calls += s.calls;
      sum.usec += s.usec;
    }
  return stats;
}

/**
 * Starts measuring a phase; `end(events)` returns its costs per event. `redisNodes`: the Redis servers whose commands
 * count (a private single Redis, a cluster's nodes), default the shared REDIS_URL.
 */
export async function startPhase({ pids, databaseUrl, pgStats, redisNodes }) {
  const cpu0 = { ...Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuMsOf(p)])) };
  const pg0 = cpuMsByName('postgres');
  const redisCpu0 = cpuMsByName('redis-server');
  const redis0 = await redisCommandStats(redisNodes);
  if (pgStats) await query(databaseUrl, 'SELECT pg_stat_statements_reset()');
  const t0 = performance.now();
  return {
    async end(events) {
      const wallMs = performance.now() - t0;
      const per = (v) => Math.round((v / events) * 1000) / 1000;
      const cpu = Object.fromEntries(
        Object.entries(pids).map(([k, p]) => [
          k,
          { msPerEvent: per(cpuMsOf(p) - cpu0[k]), busy: (cpuMsOf(p) - cpu0[k]) / wallMs },
        ]),
      );
      cpu.postgres = { msPerEvent: per(cpuMsByName('postgres') - pg0), busy: (cpuMsByName('postgres') - pg0) / wallMs };
      cpu.redis = {
        msPerEvent: per(cpuMsByName('redis-server') - redisCpu0),
        busy: (cpuMsByName('redis-server') - redisCpu0) / wallMs,
      };
      const redis1 = await redisCommandStats(redisNodes);
      const redisCommands = Object.entries(redis1)
        .map(([cmd, s]) => ({
          cmd,
          calls: s.calls - (redis0[cmd]?.calls ?? 0),
          usec: s.usec - (redis0[cmd]?.usec ?? 0),
        }))
        .filter((c) => c.calls > 0)
        .sort((a, b) => b.usec - a.usec);
      const result = {
        events,
        wallMs: Math.round(wallMs),
        cpu,
        redisCommandsPerEvent: per(redisCommands.reduce((s, c) => s + c.calls, 0)),
        redisTop: redisCommands.slice(0, 8).map((c) => ({ ...c, perEvent: per(c.calls) })),
      };
      if (pgStats) {
        const rows = await query(
          databaseUrl,
          `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query, calls::int, rows::int,
             round(total_exec_time::numeric, 1)::float AS ms
           FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
           ORDER BY total_exec_time DESC`,
        );
        result.pgStatementsPerEvent = per(rows.reduce((s, r) => s + r.calls, 0));
        result.pgExecMsPerEvent = per(rows.reduce((s, r) => s + r.ms, 0));
        result.pgTop = rows.slice(0, 16).map((r) => ({ ...r, msPerEvent: per(r.ms) }));
      }
      return result;
    },
  };
}
