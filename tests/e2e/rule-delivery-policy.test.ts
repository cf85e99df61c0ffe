import { startTargetServer, type TargetServer } from '@relay/test-support';
import { pino } from 'pino';
import { startPipeline, userCredential, type Pipeline } from './harness';

// Per-rule delivery policy (attempts, backoff, time-out over the worker's DELIVERY_* settings) and the
// outbound headers a rule sets or removes. The worker here: 3 attempts, 40 ms base, 200 ms cap, 4 s time-out.
let pipeline: Pipeline;
let failing: TargetServer;
let hanging: TargetServer;
let ok: TargetServer;
let hookTarget: TargetServer;
let admin: string;
/** The retry schedule as the worker chose it (its debug log), by event: no wall clock in what is checked. */
const scheduled = new Map<string, number[]>();
const recorder = pino(
  { level: 'debug' },
  {
    write(line: string) {
      const entry = JSON.parse(line) as { msg: string; eventId?: string; delayMs?: number };
      if (entry.msg !== 'delivery retry scheduled') return;
      scheduled.set(entry.eventId!, [...(scheduled.get(entry.eventId!) ?? []), entry.delayMs!]);
    },
  },
);

beforeAll(async () => {
  failing = await startTargetServer();
  hanging = await startTargetServer();
  ok = await startTargetServer();
  hookTarget = await startTargetServer();
  failing.replyWith(503);
  hanging.replyWith('hang');
  pipeline = await startPipeline({ worker: false });
  pipeline.startWorker({ DELIVERY_MAX_ATTEMPTS: '3', DELIVERY_TIMEOUT_MS: '4000' }, recorder);
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await Promise.all([failing, hanging, ok, hookTarget].map((t) => t.close()));
});

async function rule(source: string, targetUrl: string, options: Record<string, unknown> = {}): Promise<string> {
  const res = await pipeline.http
    .post('/rules')
    .set('authorization', admin)
    .send({ source, target_url: targetUrl, ...options })
    .expect(201);
  return res.body.id as string;
}
const ingest = async (source: string, headers: Record<string, string> = {}) =>
  (
    await pipeline.http
      .post(`/${source}`)
      .set({ 'content-type': 'application/json', ...headers })
      .send('{"a":1}')
      .expect(202)
  ).body.id as string;

/** Milliseconds between the end of each attempt and the start of the next. */
async function gapsOf(eventId: string): Promise<number[]> {
  const attempts = await pipeline.attemptsOf(eventId);
  return attempts.slice(1).map((a, i) => a.startedAt.getTime() - attempts[i]!.finishedAt.getTime());
}

describe('per-rule delivery policy', () => {
  it('fails after the rule max_attempts while a rule without a policy keeps the global count', async () => {
    await rule('two-tries', `${failing.url}/two`, { delivery_policy: { max_attempts: 2 } });
    await rule('global-tries', `${failing.url}/global`);
    const [two, global] = await Promise.all([ingest('two-tries'), ingest('global-tries')]);
    const [twoEvent, globalEvent] = await Promise.all([
      pipeline.waitForStatus(two, 'failed'),
      pipeline.waitForStatus(global, 'failed'),
    ]);
    expect(twoEvent).toMatchObject({ failureReason: 'retries_exhausted', attemptCount: 2 });
    expect(globalEvent).toMatchObject({ failureReason: 'retries_exhausted', attemptCount: 3 });
    expect(await pipeline.attemptsOf(two)).toHaveLength(2);
  });

  it('spaces attempts by the rule backoff base and caps them at the rule cap', async () => {
    const policy = { max_attempts: 5, backoff_base_seconds: 1, backoff_cap_seconds: 1 };
    await rule('slow-backoff', `${failing.url}/slow`, { delivery_policy: policy });
    await rule('fast-backoff', `${failing.url}/fast`);
    const [slow, fast] = await Promise.all([ingest('slow-backoff'), ingest('fast-backoff')]);
    await Promise.all([pipeline.waitForStatus(slow, 'failed', 15_000), pipeline.waitForStatus(fast, 'failed')]);
    // Equal jitter over a 1 s step: every wait is 0.5–1 s, where the global 40 ms base waits at most 200 ms.
    // Uncapped, the waits would double (at least 0.5 + 1 + 2 + 4 s); capped at 1 s each is at most 1 s.
    // Checked on the schedule the worker chose: a measured gap also holds the queue's latency, which a
    // loaded machine stretches without bound.
    const slowWaits = scheduled.get(slow)!;
    expect(slowWaits).toHaveLength(4);
    for (const wait of slowWaits) expect(wait).toBeGreaterThanOrEqual(500);
    for (const wait of slowWaits) expect(wait).toBeLessThanOrEqual(1_000);
    const fastWaits = scheduled.get(fast)!;
    expect(fastWaits).toHaveLength(2);
    for (const wait of fastWaits) expect(wait).toBeLessThanOrEqual(200);
    // And the worker kept to it: no attempt started before its wait was over (a lower bound holds under load).
    const slowGaps = await gapsOf(slow);
    slowGaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(slowWaits[i]! - 5));
    for (const gap of slowGaps) expect(gap).toBeGreaterThanOrEqual(450);
  });

  it('times an attempt out after the rule timeout_seconds, the global time-out being longer', async () => {
    await rule('quick-timeout', `${hanging.url}/quick`, { delivery_policy: { timeout_seconds: 1, max_attempts: 1 } });
    await rule('global-timeout', `${hanging.url}/global`, { delivery_policy: { max_attempts: 1 } });
    const [quick, global] = await Promise.all([ingest('quick-timeout'), ingest('global-timeout')]);
    await Promise.all([pipeline.waitForStatus(quick, 'failed'), pipeline.waitForStatus(global, 'failed')]);
    const [quickAttempt] = await pipeline.attemptsOf(quick);
    const [globalAttempt] = await pipeline.attemptsOf(global);
    // The error names the time-out the attempt ran with (got's "Timeout awaiting 'request' for N ms"): that is
    // the check, not how long the attempt took, which a loaded machine stretches.
    expect(quickAttempt).toMatchObject({
      responseStatus: null,
      error: expect.stringMatching(/ETIMEDOUT.* for 1000ms/),
    });
    expect(quickAttempt!.durationMs).toBeGreaterThanOrEqual(900);
    expect(globalAttempt!.error).toMatch(/ETIMEDOUT.* for 4000ms/);
    expect(globalAttempt!.durationMs).toBeGreaterThanOrEqual(3_900);
  });

  it('applies a policy set by PATCH and drops it again with delivery_policy: null', async () => {
    const id = await rule('patched', `${failing.url}/patched`);
    const path = `/rules/${id}`;
    const set = await pipeline.http
      .patch(path)
      .set('authorization', admin)
      .send({ delivery_policy: { max_attempts: 1, timeout_seconds: 5 } })
      .expect(200);
    expect(set.body.delivery_policy).toEqual({ max_attempts: 1, timeout_seconds: 5 });
    // The worker reads rules through a short cache (RULE_CACHE_MS, 1 s): a new read sees the change.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const once = await ingest('patched');
    expect(await pipeline.waitForStatus(once, 'failed')).toMatchObject({ attemptCount: 1 });

    const cleared = await pipeline.http
      .patch(path)
      .set('authorization', admin)
      .send({ delivery_policy: null })
      .expect(200);
    expect(cleared.body.delivery_policy).toBeNull();
    expect((await pipeline.http.get(path).set('authorization', admin).expect(200)).body.delivery_policy).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = await ingest('patched');
    expect(await pipeline.waitForStatus(again, 'failed')).toMatchObject({ attemptCount: 3 });
  });
});

describe('outbound headers set and removed by a rule', () => {
  it('arrive at the target as configured; hooks get the removals but not the fixed values', async () => {
    const id = await rule('shaped', `${ok.url}/shaped`, {
      outbound_headers: {
        set: { 'X-Api-Key': 'target-key', 'x-replaced': 'fixed' },
        remove: ['x-rule-secret', 'X-Forwarded-For'],
      },
    });
    await pipeline.http
      .post(`/rules/${id}/hooks`)
      .set('authorization', admin)
      .send({ target_url: `${hookTarget.url}/shaped`, trigger: 'provider_succeeded' })
      .expect(201);
    const eventId = await ingest('shaped', {
      'x-replaced': 'inbound',
      'x-rule-secret': 's3cr3t',
      'x-forwarded-for': '203.0.113.9',
      'x-kept': 'yes',
    });
    await pipeline.waitForStatus(eventId, 'delivered');
    const [main] = await ok.waitForRequests(1);
    expect(main!.headers).toMatchObject({
      'x-api-key': 'target-key',
      'x-replaced': 'fixed',
      'x-kept': 'yes',
      'content-type': 'application/json',
      'x-relay-event-id': eventId,
      'webhook-id': eventId,
    });
    expect(main!.headers['x-rule-secret']).toBeUndefined();
    expect(main!.headers['x-forwarded-for']).toBeUndefined();

    const [hook] = await hookTarget.waitForRequests(1);
    expect(hook!.headers).toMatchObject({
      'x-kept': 'yes',
      'x-replaced': 'inbound',
      'x-relay-hook-id': expect.any(String),
    });
    expect(hook!.headers['x-api-key']).toBeUndefined();
    expect(hook!.headers['x-rule-secret']).toBeUndefined();

    const view = (await pipeline.http.get(`/rules/${id}`).set('authorization', admin).expect(200)).body;
    expect(view.outbound_headers).toEqual({
      forward: [],
      set: { 'x-api-key': 'target-key', 'x-replaced': 'fixed' },
      remove: ['x-rule-secret', 'x-forwarded-for'],
    });
  });
});

describe('limits of the delivery policy and outbound headers', () => {
  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['max_attempts 0', { delivery_policy: { max_attempts: 0 } }, 'delivery_policy.max_attempts'],
    ['max_attempts 51', { delivery_policy: { max_attempts: 51 } }, 'delivery_policy.max_attempts'],
    ['max_attempts 1.5', { delivery_policy: { max_attempts: 1.5 } }, 'delivery_policy.max_attempts'],
    [
      'backoff_base_seconds 0',
      { delivery_policy: { backoff_base_seconds: 0 } },
      'delivery_policy.backoff_base_seconds',
    ],
    [
      'backoff_base_seconds 3601',
      { delivery_policy: { backoff_base_seconds: 3_601 } },
      'delivery_policy.backoff_base_seconds',
    ],
    [
      'backoff_cap_seconds over 7 days',
      { delivery_policy: { backoff_cap_seconds: 604_801 } },
      'delivery_policy.backoff_cap_seconds',
    ],
    ['timeout_seconds 0', { delivery_policy: { timeout_seconds: 0 } }, 'delivery_policy.timeout_seconds'],
    ['timeout_seconds 121', { delivery_policy: { timeout_seconds: 121 } }, 'delivery_policy.timeout_seconds'],
    [
      'a cap under the base',
      { delivery_policy: { backoff_base_seconds: 60, backoff_cap_seconds: 30 } },
      'delivery_policy',
    ],
    ['an unknown policy field', { delivery_policy: { retries: 3 } }, 'delivery_policy'],
    ['setting content-type', { outbound_headers: { set: { 'Content-Type': 'text/plain' } } }, 'outbound_headers.set'],
    ['setting a relay signature', { outbound_headers: { set: { 'x-relay-signature': 'x' } } }, 'outbound_headers.set'],
    ['setting webhook-id', { outbound_headers: { set: { 'webhook-id': 'x' } } }, 'outbound_headers.set'],
    ['setting user-agent', { outbound_headers: { set: { 'user-agent': 'x' } } }, 'outbound_headers.set'],
    ['setting host', { outbound_headers: { set: { host: 'evil.example' } } }, 'outbound_headers.set'],
    ['a control character', { outbound_headers: { set: { 'x-a': 'a\r\nb' } } }, 'outbound_headers.set.x-a'],
    [
      'a value over 1000 characters',
      { outbound_headers: { set: { 'x-a': 'a'.repeat(1_001) } } },
      'outbound_headers.set.x-a',
    ],
    ['more than 20 set headers', { outbound_headers: { set: manyHeaders(21) } }, 'outbound_headers.set'],
    [
      'removing webhook-signature',
      { outbound_headers: { remove: ['webhook-signature'] } },
      'outbound_headers.remove.0',
    ],
    ['removing content-type', { outbound_headers: { remove: ['content-type'] } }, 'outbound_headers.remove.0'],
    [
      'removing more than 50',
      { outbound_headers: { remove: Object.keys(manyHeaders(51)) } },
      'outbound_headers.remove',
    ],
    ['a header name that is no token', { outbound_headers: { remove: ['x a'] } }, 'outbound_headers.remove.0'],
  ];

  it.each(refused)('answers 400 validation_failed for %s, naming the field', async (what, options, field) => {
    const res = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'limits', target_url: `${ok.url}/limits`, ...options })
      .expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    const errors = (res.body.errors as Array<{ field: string; message: string }>).filter(
      (e) => e.field === field || e.field.startsWith(`${field}.`),
    );
    expect(errors).not.toHaveLength(0);
    // A refused name says why, whether it is a key of `set` or an item of `remove`.
    if (/^(setting|removing) [a-z-]+$|relay signature/.test(what))
      expect(errors[0]!.message).toMatch(/The relay sets this header itself/);
  });

  it('accepts the limits themselves', async () => {
    const policy = {
      max_attempts: 50,
      backoff_base_seconds: 3_600,
      backoff_cap_seconds: 604_800,
      timeout_seconds: 120,
    };
    const id = await rule('at-limits', `${ok.url}/at-limits`, {
      delivery_policy: policy,
      outbound_headers: { set: manyHeaders(20), remove: Object.keys(manyHeaders(50)) },
    });
    const view = (await pipeline.http.get(`/rules/${id}`).set('authorization', admin).expect(200)).body;
    expect(view.delivery_policy).toEqual(policy);
    expect(Object.keys(view.outbound_headers.set)).toHaveLength(20);
  });
});

function manyHeaders(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`x-h${i}`, 'v']));
}
