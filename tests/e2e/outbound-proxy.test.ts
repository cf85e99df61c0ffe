import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import {
  startConnectProxy,
  startTargetServer,
  waitFor,
  type ConnectProxy,
  type TargetServer,
} from '@relay/test-support';
import { startPipeline, type Pipeline } from './harness';

let pipeline: Pipeline;
let proxy: ConnectProxy;
let main: TargetServer;
let hooks: TargetServer;

async function ingestTo(source: string, targetUrl: string, hookUrl?: string): Promise<string> {
  const { prisma } = pipeline.store;
  const rule = await prisma.rule.create({
    data: { name: randomUUID(), organizationId: DEFAULT_ORGANIZATION_ID, source, targetUrl },
  });
  if (hookUrl) {
    await prisma.hook.create({
      data: {
        name: randomUUID(),
        organizationId: DEFAULT_ORGANIZATION_ID,
        ruleId: rule.id,
        targetUrl: hookUrl,
        trigger: 'provider_succeeded',
      },
    });
  }
  const res = await pipeline.http.post(`/${source}`).set('content-type', 'application/json').send('{}').expect(202);
  return res.body.id as string;
}

beforeAll(async () => {
  [proxy, main, hooks] = await Promise.all([startConnectProxy(), startTargetServer(), startTargetServer()]);
  // The worker may reach the loopback target only (an allowlisted hole), and only through the proxy;
  // the proxy itself is on loopback too, which the policy would refuse were it a target.
  pipeline = await startPipeline({
    worker: {
      TARGET_ALLOW_PRIVATE: 'false',
      TARGET_ALLOWLIST: '127.0.0.1/32',
      OUTBOUND_PROXY_URL: `http://relay:proxy-pass@127.0.0.1:${proxy.port}`,
    },
  });
});
afterAll(async () => {
  await pipeline.close();
  await Promise.all([proxy.close(), main.close(), hooks.close()]);
});

describe('OUTBOUND_PROXY_URL on the worker', () => {
  it('sends deliveries and hooks through CONNECT tunnels to the checked address', async () => {
    const id = await ingestTo('proxied', `${main.url}/main`, `${hooks.url}/hook`);
    await pipeline.waitForStatus(id, 'delivered');
    await hooks.waitForRequests(1);
    const authorities = proxy.connects.map((c) => c.authority);
    expect(authorities).toEqual(expect.arrayContaining([`127.0.0.1:${main.port}`, `127.0.0.1:${hooks.port}`]));
    expect(proxy.connects.every((c) => c.authorization === `Basic ${btoa('relay:proxy-pass')}`)).toBe(true);
    expect(main.requests[0]).toMatchObject({ url: '/main', headers: { 'webhook-id': id } });
    expect(hooks.requests[0]).toMatchObject({ url: '/hook', headers: { 'x-relay-delivery-status': 'delivered' } });
    await waitFor(
      async () =>
        (await pipeline.attemptsOf(id)).some((a) => a.kind === 'hook' && a.responseStatus === 200) || undefined,
      30_000,
      'the hook attempt',
    );
  });

  it('still refuses a private target the policy forbids, without asking the proxy', async () => {
    const before = proxy.connects.length;
    const literal = await ingestTo('private-literal', `http://127.0.0.2:${main.port}/no`);
    const named = await ingestTo('private-name', `http://localhost:${main.port}/no`);
    for (const id of [literal, named]) {
      const event = await pipeline.waitForStatus(id, 'failed');
      expect(event).toMatchObject({ failureReason: 'target_blocked', attemptCount: 1 });
    }
    expect(proxy.connects.length).toBe(before);
    expect(main.requests.some((r) => r.url === '/no')).toBe(false);
  });
});
