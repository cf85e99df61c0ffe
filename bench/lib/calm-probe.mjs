// What the machine and the api's event loop did during one phase, to attribute a latency tail that no statement and
// no segment of the relay's own explains: how busy both cores were (/proc/stat), how many threads were runnable at
// once (procs_running, sampled every 100 ms: more than the cores means some waited for one), and the api's event-loop
// lag (prom-client's histogram, which each scrape of /metrics resets, so a scrape at the start bounds it to the phase),
// and the work left over from the phases before it (`backlog()`: events still to index for search, still queued), which
// the phase's processes do beside its own events.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { percentile } from './stats.mjs';

function cpuTicks() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const idle = f[3] + f[4];
  return { idle, total: f.slice(0, 8).reduce((a, b) => a + b, 0) };
}

const runnable = () => Number(/^procs_running (\d+)/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? 0);

async function apiLag(metricsUrl) {
  // No api (the latency floor's phase): no lag to read.
  if (!metricsUrl) return { maxMs: NaN, p99Ms: NaN };
  try {
    const text = await (await fetch(metricsUrl)).text();
    const get = (name) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1]) * 1000;
    return { maxMs: get('nodejs_eventloop_lag_max_seconds'), p99Ms: get('nodejs_eventloop_lag_p99_seconds') };
  } catch {
    return { maxMs: NaN, p99Ms: NaN };
  }
}

/** Starts the probe; `end()` answers the phase's figures. */
export async function startCalmProbe(metricsUrl, backlog) {
  const backlogAtStart = await backlog();
  await apiLag(metricsUrl);
  const start = cpuTicks();
  const samples = [];
  const timer = setInterval(() => samples.push(runnable()), 100);
  return {
    async end() {
      clearInterval(timer);
      const now = cpuTicks();
      const lag = await apiLag(metricsUrl);
      const backlogAtEnd = await backlog();
      const total = now.total - start.total;
      return {
        cores: os.cpus().length,
        busy: total > 0 ? Math.round((1 - (now.idle - start.idle) / total) * 1000) / 1000 : NaN,
        runnableMean: samples.length
          ? Math.round((samples.reduce((a, b) => a + b, 0) / samples.length) * 10) / 10
          : NaN,
        runnableP99: percentile(samples, 99),
        apiLagMaxMs: Math.round(lag.maxMs),
        apiLagP99Ms: Math.round(lag.p99Ms),
        backlogAtStart,
        backlogAtEnd,
      };
    },
  };
}
