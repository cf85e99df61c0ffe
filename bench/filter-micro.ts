// pnpm bench:filter — the routing filter's cost per event (issue 29 item 6: a typical filter ≤ 20 µs).
// Compiles typical filters once, as the worker does, and evaluates each against the bench's 1.3 KB GitHub
// push many times; prints µs per evaluation (median of rounds) and, separately, the JSON.parse of the body
// the worker does once per event whatever the filter.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compileFilter, matches, type FilterSubject } from '@relay/core';

const text = readFileSync(path.join(import.meta.dirname, 'github-push.json'), 'utf8');
const subject: FilterSubject = {
  body: JSON.parse(text),
  headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'user-agent': 'GitHub-Hookshot/abc' },
  path: '',
  query: {},
};
const ROUNDS = Number(process.argv[2] ?? 7);
const ITERATIONS = 50_000;

const FILTERS: Record<string, unknown> = {
  'json: push to main of octocat/*': {
    headers: { 'x-github-event': 'push' },
    body: { ref: 'refs/heads/main', repository: { full_name: { $startsWith: 'octocat/' } } },
  },
  'json: $or of $in and nested $not': {
    body: { $or: [{ ref: { $in: ['refs/heads/main', 'refs/heads/release'] } }, { deleted: { $not: true } }] },
  },
  'json: array contains (commit authors)': { body: { commits: { author: { username: { $exist: true } } } } },
  'cel: push to main of octocat/*': {
    cel: 'headers["x-github-event"] == "push" && body.ref == "refs/heads/main" && body.repository.full_name.startsWith("octocat/")',
  },
};

function timeUs(run: () => unknown): number {
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < ITERATIONS; i++) run();
    rounds.push(Number(process.hrtime.bigint() - start) / 1000 / ITERATIONS);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)]!;
}

const results: Record<string, { us: number; matched: boolean }> = {};
for (const [name, filter] of Object.entries(FILTERS)) {
  const compiled = compileFilter(filter);
  if (!compiled.ok) throw new Error(`${name}: ${JSON.stringify(compiled.errors)}`);
  const matched = matches(compiled.filter, subject);
  results[name] = { us: Number(timeUs(() => matches(compiled.filter, subject)).toFixed(3)), matched };
}
const parseUs = Number(timeUs(() => JSON.parse(text)).toFixed(3));
console.log(
  JSON.stringify(
    { node: process.version, body_bytes: Buffer.byteLength(text), results, json_parse_us: parseUs },
    null,
    2,
  ),
);
const worst = Math.max(...Object.values(results).map((r) => r.us));
console.error(`[filter-micro] slowest filter ${worst} µs per event (budget 20 µs)`);
process.exitCode = worst <= 20 ? 0 : 1;
