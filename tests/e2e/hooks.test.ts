import net from 'node:net';
import { relaySignature } from '@relay/core';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { startPipeline, userCredential, type Pipeline } from './harness';

const SECRET = 'rule-signing-secret-1';
let pipeline: Pipeline;
let main: TargetServer;
let hooks: TargetServer;
let admin: string;

async function closedPortUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/gone`;
}

/** A rule for `source` with a success hook and a failure hook, both at the hook server. */
async function ruleWithHooks(source: string, targetUrl: string) {
  const rule = (
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source, target_url: targetUrl, signing_secret: SECRET })
      .expect(201)
  ).body;
  for (const trigger of ['provider_succeeded', 'provider_failed']) {
    await pipeline.http
      .post(`/rules/${rule.id}/hooks`)
      .set('authorization', admin)
      .send({ target_url: `${hooks.url}/${source}/${trigger}`, trigger })
      .expect(201);
  }
  return rule.id as string;
}
const ingest = async (source: string, body: string) =>
  (await pipeline.http.post(`/${source}`).set('content-type', 'application/json').send(body).expect(202)).body
    .id as string;
const hookCalls = (source: string) => hooks.requests.filter((r) => r.url.startsWith(`/${source}/`));

beforeAll(async () => {
  main = await startTargetServer();
  hooks = await startTargetServer();
  pipeline = await startPipeline({ worker: { DELIVERY_MAX_ATTEMPTS: '3' } });
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await main.close();
  await hooks.close();
});
beforeEach(() => {
  main.replyWith(200);
  hooks.replyWith(200);
});

describe('hooks', () => {
  it('runs success hooks only after a 2xx, with the payload, both headers and a valid signature', async () => {
    await ruleWithHooks('ok', `${main.url}/main`);
    main.replyWith(500, 200);
    const body = '{"order":42,"note":"exact bytes"}';
    const id = await ingest('ok', body);
    await pipeline.waitForStatus(id, 'delivered');
    const [call] = await waitFor(
      async () => (hookCalls('ok').length > 0 ? hookCalls('ok') : undefined),
      10_000,
      'the success hook',
    );
    expect(call!.url).toBe('/ok/provider_succeeded');
    expect(call!.receivedAt).toBeGreaterThanOrEqual(main.requests.filter((r) => r.url === '/main').at(-1)!.receivedAt);
    expect(call!.body.toString()).toBe(body);
    expect(call!.headers).toMatchObject({
      'x-relay-delivery-status': 'delivered',
      'x-relay-response-status': '200',
      'webhook-id': id,
    });
    expect(call!.headers['x-relay-signature']).toBe(relaySignature(SECRET, Buffer.from(body)));
    await new Promise((r) => setTimeout(r, 300));
    expect(hookCalls('ok')).toHaveLength(1);
    expect(await pipeline.eventById(id)).toMatchObject({ status: 'delivered', attemptCount: 2 });

    // A retried event is a new run: its success fires the hook again.
    await pipeline.http.post(`/events/${id}/retry`).set('authorization', admin).expect(202);
    await waitFor(async () => (hookCalls('ok').length === 2 ? true : undefined), 10_000, 'the hook of the second run');
  });

  it('runs failure hooks only after the final failure, with the rule status', async () => {
    await ruleWithHooks('bad', `${main.url}/bad`);
    main.replyWith(503);
    const id = await ingest('bad', '{"n":1}');
    await pipeline.waitForStatus(id, 'failed');
    const [call] = await waitFor(
      async () => (hookCalls('bad').length > 0 ? hookCalls('bad') : undefined),
      10_000,
      'the failure hook',
    );
    const mainCalls = main.requests.filter((r) => r.url === '/bad');
    expect(mainCalls).toHaveLength(3);
    expect(call!.url).toBe('/bad/provider_failed');
    expect(call!.receivedAt).toBeGreaterThanOrEqual(mainCalls[2]!.receivedAt);
    expect(call!.headers).toMatchObject({ 'x-relay-delivery-status': 'failed', 'x-relay-response-status': '503' });
    await new Promise((r) => setTimeout(r, 300));
    expect(hookCalls('bad')).toHaveLength(1);
  });

  it('sends no X-Relay-Response-Status when the target never answered', async () => {
    await ruleWithHooks('down', await closedPortUrl());
    const id = await ingest('down', '{"n":2}');
    await pipeline.waitForStatus(id, 'failed');
    const [call] = await waitFor(
      async () => (hookCalls('down').length > 0 ? hookCalls('down') : undefined),
      10_000,
      'the failure hook',
    );
    expect(call!.headers['x-relay-delivery-status']).toBe('failed');
    expect(call!.headers).not.toHaveProperty('x-relay-response-status');
  });

  it('a failing hook is stored as a hook attempt and changes nothing else', async () => {
    await ruleWithHooks('hookfails', `${main.url}/fine`);
    hooks.replyWith(400);
    const id = await ingest('hookfails', '{"n":3}');
    await pipeline.waitForStatus(id, 'delivered');
    const attempts = await waitFor(
      async () => {
        const all = await pipeline.attemptsOf(id);
        return all.some((a) => a.kind === 'hook') ? all : undefined;
      },
      10_000,
      'the hook attempt',
    );
    expect(attempts.map((a) => [a.kind, a.responseStatus])).toEqual([
      ['main', 200],
      ['hook', 400],
    ]);
    expect(attempts[1]!.hookId).not.toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    expect(hookCalls('hookfails').map((c) => c.url)).toEqual(['/hookfails/provider_succeeded']);
    expect(await pipeline.eventById(id)).toMatchObject({ status: 'delivered', attemptCount: 1, failureReason: null });
  });

  it('events without a rule have no hooks', async () => {
    const rule = await ruleWithHooks('withrule', `${main.url}/r`);
    await pipeline.http.patch(`/rules/${rule}`).set('authorization', admin).send({ active: false }).expect(200);
    const id = await ingest('withrule', '{"n":4}');
    await pipeline.waitForStatus(id, 'failed');
    await new Promise((r) => setTimeout(r, 300));
    expect(hookCalls('withrule')).toHaveLength(0);
  });
});
