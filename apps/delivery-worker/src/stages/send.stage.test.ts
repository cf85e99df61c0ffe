import { parsePortPolicy, type TargetPolicy } from '@relay/core';
import type { StoredEvent } from '@relay/db';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import type { FairGate } from '../fair-gate';
import { createSender } from '../sender';
import { createSecretLookup } from '../signing-secrets';
import type { Delivery } from './delivery';
import { createSend } from './send.stage';
import { fairGateOf, ORG, RETRY } from './stage-test-kit';

const T0 = new Date('2027-06-01T00:00:00Z').getTime();
// The target server listens on 127.0.0.1 at a random port: a self-hosted install's policy lets it through.
const open: TargetPolicy = { allowPrivate: true, allowlist: [], allowedPorts: parsePortPolicy('1-65535') };

let target: TargetServer;
beforeAll(async () => {
  target = await startTargetServer();
});
afterAll(() => target.close());
beforeEach(() => {
  target.requests.length = 0;
  target.replyWith(200);
});

// What send is handed: a stored event (held in memory here: send reads nothing from the database).
const event: StoredEvent = {
  id: '0190f5c2-0000-7000-8000-000000000001',
  organizationId: ORG,
  source: 'shop',
  ruleId: null,
  targetUrl: null,
  body: Buffer.from('{"stage":"send"}'),
  path: '',
  query: {},
  headers: { 'content-type': 'application/json' },
  status: 'queued',
  attemptCount: 2,
  nextAttemptAt: null,
  failureReason: null,
  lastError: null,
  createdAt: new Date(T0),
  deliveredAt: null,
  runStartAttempt: 0,
};

// A real fair gate whose releases are heard: the slot prepare took must always come back.
function setup(policy: TargetPolicy = open) {
  const gate = fairGateOf(1);
  const released: { origin: string; answered: boolean | undefined }[] = [];
  const fairGate: FairGate = {
    ...gate,
    release: (origin, answered) => (released.push({ origin, answered }), gate.release(origin, answered)),
  };
  const sender = createSender({ timeoutMs: 5_000, policy });
  const send = createSend({
    sender,
    secretFor: createSecretLookup(async () => null, 'whsec_c3RhZ2Utc2VjcmV0', undefined),
    targetPolicy: policy,
    fairGate,
    now: () => T0,
  });
  return { send, fairGate, released, close: () => sender.close() };
}

async function prepared(fairGate: FairGate, url: string, timeoutMs?: number): Promise<Delivery> {
  const origin = new URL(url).origin;
  expect(await fairGate.acquire(origin)).toBe(true);
  return {
    orgId: ORG,
    event,
    targetUrl: url,
    ruleId: null,
    rule: null,
    policy: { retry: RETRY, ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
    ordered: false,
    origin,
    forwardPathQuery: false,
  };
}

describe('the send stage', () => {
  it('sends the event signed to its target and hands settle the attempt as it is stored', async () => {
    const { send, fairGate, released, close } = setup();
    target.replyWith({ status: 202, body: 'taken' });
    const { attempt, outcome } = await send(await prepared(fairGate, `${target.url}/in`));
    close();
    expect(outcome).toMatchObject({ kind: 'response', status: 202 });
    expect(attempt).toMatchObject({
      attemptNumber: 3,
      kind: 'main',
      targetUrl: `${target.url}/in`,
      responseStatus: 202,
      responseBody: 'taken',
      error: null,
      startedAt: new Date(T0),
    });
    const [request] = target.requests;
    expect(request!.body.toString()).toBe('{"stage":"send"}');
    expect(request!.headers['webhook-id']).toBe(event.id);
    expect(request!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(released).toEqual([{ origin: target.url, answered: true }]);
  });

  it("gives up on a hanging target after the rule's time-out; the slot is freed, not as answered", async () => {
    const { send, fairGate, released, close } = setup();
    target.replyWith('hang');
    const { attempt, outcome } = await send(await prepared(fairGate, `${target.url}/slow`, 100));
    close();
    expect(outcome.kind).toBe('network');
    expect(attempt.responseStatus).toBeNull();
    expect(attempt.error).toMatch(/^[A-Z_]+: /);
    expect(released).toEqual([{ origin: target.url, answered: false }]);
    // The freed slot is there for the origin's next delivery.
    expect(await fairGate.acquire(target.url)).toBe(true);
  });

  it('sends nothing to a target the policy refuses, and says why in the attempt', async () => {
    const closed: TargetPolicy = { ...open, allowPrivate: false };
    const { send, fairGate, released, close } = setup(closed);
    const { attempt, outcome } = await send(await prepared(fairGate, `${target.url}/in`));
    close();
    expect(outcome.kind).toBe('blocked');
    expect(attempt.error).toMatch(/^blocked: /);
    expect(target.requests).toHaveLength(0);
    expect(released).toEqual([{ origin: target.url, answered: false }]);
  });
});
