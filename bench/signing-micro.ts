// pnpm bench:signing — what signing one delivery costs (X-Relay-Signature and the Standard Webhooks headers over the
// bench's 1.3 KB GitHub push), with the Standard Webhooks key as the Buffer it was made from before and as the
// KeyObject made once per secret that signing.ts keeps now. Alternating rounds; prints µs per delivery (medians) and
// writes bench/results/signing-micro.json.
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { relaySignature, standardWebhookHeaders, standardWebhookKey } from '@relay/core';
import { median } from './lib/stats.mjs';

const body = readFileSync(path.join(import.meta.dirname, 'github-push.json'));
const secret = `whsec_${Buffer.from('a rule signing secret of 32 bytes').toString('base64')}`;
const ROUNDS = Number(process.argv[2] ?? 7);
const ITERATIONS = 50_000;

// The Standard Webhooks signature as signing.ts made it before: the key's Buffer passed to createHmac every time.
function bufferKeyHeaders(id: string, seconds: number) {
  const signed = Buffer.concat([Buffer.from(`${id}.${seconds}.`), body]);
  return `v1,${createHmac('sha256', standardWebhookKey(secret)).update(signed).digest('base64')}`;
}

const variants: Record<string, (i: number) => unknown> = {
  'buffer key (before)': (i) => [relaySignature(secret, body), bufferKeyHeaders(`evt_${i}`, 1_800_000_000)],
  'key object once per secret': (i) => [
    relaySignature(secret, body),
    standardWebhookHeaders(secret, `evt_${i}`, 1_800_000_000, body)['webhook-signature'],
  ],
};
if (bufferKeyHeaders('evt_1', 1) !== standardWebhookHeaders(secret, 'evt_1', 1, body)['webhook-signature'])
  throw new Error('the two ways sign differently');

const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const names = Object.keys(variants);
  for (const name of round % 2 === 0 ? names : names.reverse()) {
    const run = variants[name]!;
    const start = process.hrtime.bigint();
    for (let i = 0; i < ITERATIONS; i++) run(i);
    times[name]!.push(Number(process.hrtime.bigint() - start) / ITERATIONS / 1000);
  }
}
const result = Object.fromEntries(Object.entries(times).map(([name, us]) => [name, { medianUs: median(us)!, us }]));
for (const [name, { medianUs }] of Object.entries(result))
  console.log(`${name}: ${medianUs.toFixed(2)} µs per delivery`);
writeFileSync(
  path.join(import.meta.dirname, 'results', 'signing-micro.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rounds: ROUNDS, result }, null, 1)}\n`,
);
