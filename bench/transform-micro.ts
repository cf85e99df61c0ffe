// pnpm bench:transform — the transform runner's cost per call (issue 30: a typical transform ≤ 1 ms of worker CPU).
// Runs the documented GitHub push → chat message transform on the bench's 1.3 KB push, sequentially, through the
// real runner (a sandbox thread, a fresh QuickJS context per call); prints µs per call of wall time and of CPU
// (process.cpuUsage counts every thread of the process, the sandbox's included), median of rounds. Each round also
// runs the same calls with the body given as the stored JSON text (`bodyJson`, as a worker holding the webhook's
// bytes would), interleaved, so the two are compared under the same load.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTransformRunner } from '@relay/transform';
import { median } from './lib/stats.mjs';

const doc = readFileSync(path.join(import.meta.dirname, '../docs/transformations.md'), 'utf8');
const code = /```js\n(\/\/ example: github-push-to-chat\n[\s\S]*?)```/.exec(doc)?.[1];
if (!code) throw new Error('docs/transformations.md: the github-push-to-chat example is missing');
const stored = readFileSync(path.join(import.meta.dirname, 'github-push.json'), 'utf8');
const headers = { 'content-type': 'application/json', 'x-github-event': 'push' };
const request = { body: JSON.parse(stored) as unknown, headers, path: '/', query: {} };
const asText = { bodyJson: stored, headers, path: '/', query: {} };
const context = { event_id: 'evt_1', source: 'github', rule_id: 'rul_1' };
const ROUNDS = Number(process.argv[2] ?? 5);
const CALLS = 1000;

async function main() {
  const runner = createTransformRunner({ concurrency: 1 });
  try {
    for (let i = 0; i < 200; i++) await runner.run(code!, request, context); // warm-up: thread, QuickJS module, JIT
    const rounds: Array<{ wall: number; cpu: number; textCpu: number }> = [];
    const round = async (input: typeof request | typeof asText) => {
      const cpu0 = process.cpuUsage();
      const start = process.hrtime.bigint();
      for (let i = 0; i < CALLS; i++) {
        const result = await runner.run(code!, input, context);
        if (!result.ok) throw new Error(JSON.stringify(result.error));
      }
      const cpu = process.cpuUsage(cpu0);
      return { wall: Number(process.hrtime.bigint() - start) / 1000 / CALLS, cpu: (cpu.user + cpu.system) / CALLS };
    };
    for (let r = 0; r < ROUNDS; r++) {
      const parsed = await round(request);
      rounds.push({ ...parsed, textCpu: (await round(asText)).cpu });
    }
    const report = {
      node: process.version,
      body_bytes: Buffer.byteLength(JSON.stringify(request.body)),
      calls_per_round: CALLS,
      wall_us: Math.round(median(rounds.map((r) => r.wall))!),
      cpu_us: Math.round(median(rounds.map((r) => r.cpu))!),
      cpu_us_body_as_text: Math.round(median(rounds.map((r) => r.textCpu))!),
    };
    console.log(JSON.stringify(report, null, 2));
    console.error(`[transform-micro] ${report.cpu_us} µs of CPU per typical transform call (budget 1000 µs)`);
  } finally {
    await runner.close();
  }
}

void main();
