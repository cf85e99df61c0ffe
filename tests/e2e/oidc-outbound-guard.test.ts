import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { pino } from 'pino';
import { startPipeline, userCredential, type Pipeline } from './harness';
import { signingKey, startCanary, startFakeProvider, type FakeProvider } from './oidc-fake-provider';
import { CookieJar, reservePort } from './oidc-test-provider';

// An organization's identity provider is user input, and so is everything its discovery document names: the api
// fetches all of it under the target network policy (here: nothing private but 127.0.0.1, where the provider is),
// with one answer for "refused" and "cannot be reached". And the ID token's signature is checked against the
// provider's key set, whatever openid-client leaves out.
let relay: Awaited<ReturnType<typeof reservePort>>;
let pipeline: Pipeline;
let admin: string;
let canary: Awaited<ReturnType<typeof startCanary>>;
const providers: FakeProvider[] = [];
// The api's log lines (the operator's view), as JSON.
const logged: { level: number; msg: string; err?: { message?: string } }[] = [];

beforeAll(async () => {
  relay = await reservePort();
  canary = await startCanary('127.0.0.2');
  pipeline = await startPipeline({
    worker: false,
    api: { PUBLIC_BASE_URL: relay.url, TARGET_ALLOW_PRIVATE: 'false', TARGET_ALLOWLIST: '127.0.0.1' },
    apiLogger: pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
  });
  relay.serve(pipeline.api.app);
  admin = (await userCredential(pipeline, 'admin')).authorization;
});

afterAll(async () => {
  for (const provider of providers) await provider.close();
  await canary?.close();
  await relay?.close();
  await pipeline?.close();
});

/** A fresh provider (a fresh issuer: nothing cached) as the default organization's, shaped by `shape`. */
async function useProvider(shape: (p: FakeProvider) => void = () => {}): Promise<FakeProvider> {
  const provider = await startFakeProvider('relay-fake', 'ada@example.com');
  providers.push(provider);
  shape(provider);
  await pipeline.http
    .put('/api/organization/identity-provider')
    .set('authorization', admin)
    .send({ issuer_url: provider.issuer, client_id: 'relay-fake', provisioning: 'verified_email' })
    .expect(200);
  return provider;
}

const isCallback = (url: URL) => url.pathname === '/api/auth/callback/idp';

/** A whole login in a fresh browser: the callback's answer and who is signed in after it. */
async function login() {
  const jar = new CookieJar();
  const start = await jar.get(`${relay.url}/api/auth/idp`);
  expect(start.status).toBe(302);
  const { url } = await jar.follow(start.headers.get('location')!, isCallback);
  const response = await jar.get(url.href);
  // What the browser is told, less the request id every answer has of its own.
  const body = (await response.text()).replace(/"request_id":"[^"]*"/, '');
  const answer = { status: response.status, location: response.headers.get('location'), body };
  const me = (await (await jar.get(`${relay.url}/api/auth/me`)).json()) as { user: { username: string } | null };
  return { answer, user: me.user };
}

const lastFailure = async () => {
  const entry = await pipeline.store.prisma.auditEntry.findFirst({
    where: { organizationId: DEFAULT_ORGANIZATION_ID, action: 'auth.login_failed' },
    orderBy: { createdAt: 'desc' },
  });
  return entry?.metadata as { reason?: string; detail?: string } | undefined;
};

async function closedPort(host: string): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('an allowlisted private identity provider', () => {
  it('signs people in (TARGET_ALLOWLIST admits it), its keys fetched to check the ID token', async () => {
    const provider = await useProvider();
    const { answer, user } = await login();
    expect(answer.status).toBe(302);
    expect(user).toMatchObject({ username: expect.any(String) });
    expect(provider.hits.get('GET /jwks')).toBe(1);
  });
});

describe('URLs named by a discovery document pass the target policy at connect time', () => {
  it('never calls a token endpoint on 127.0.0.2, and answers exactly as for a provider that is down', async () => {
    const answers = [];
    for (const token of [
      `${canary.url}/token`, // refused: a listening port
      `http://127.0.0.2:${await closedPort('127.0.0.2')}/token`, // refused: a closed port
      `http://127.0.0.1:${await closedPort('127.0.0.1')}/token`, // allowlisted, but nothing listens: unreachable
    ]) {
      await useProvider((p) => (p.endpoints.token = token));
      const { answer, user } = await login();
      expect(user).toBeNull();
      expect(await lastFailure()).toMatchObject({ reason: 'provider_unreachable' });
      answers.push({ ...answer, audit: await lastFailure() });
    }
    expect(canary.requests).toEqual([]);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    // The operator's log tells a refusal from a provider that is down, so a private provider missing from
    // TARGET_ALLOWLIST can be found: one warning per failed login, naming the refused address.
    const warnings = logged.filter((l) => l.level === 40 && l.msg.startsWith('identity provider not reached'));
    expect(warnings).toHaveLength(3);
    expect(JSON.stringify(warnings[0])).toContain('127.0.0.2');
  });

  it('never fetches keys or userinfo from 127.0.0.2', async () => {
    await useProvider((p) => (p.endpoints.jwks = `${canary.url}/jwks`));
    expect((await login()).user).toBeNull();
    expect(await lastFailure()).toMatchObject({ reason: 'provider_unreachable' });
    // No e-mail in the ID token: the api asks the userinfo endpoint for it.
    await useProvider((p) => {
      p.endpoints.userinfo = `${canary.url}/userinfo`;
      p.claims = { email: undefined, email_verified: undefined };
    });
    expect((await login()).user).toBeNull();
    expect(await lastFailure()).toMatchObject({ reason: 'provider_unreachable' });
    expect(canary.requests).toEqual([]);
  });
});

describe('the ID token', () => {
  it('is refused when signed with a key the provider does not publish', async () => {
    await useProvider((p) => (p.signer = signingKey(p.published[0]!.kid)));
    const { answer, user } = await login();
    expect(answer.location).toBe('/app/login?error=id_token_invalid');
    expect(user).toBeNull();
    expect(await lastFailure()).toMatchObject({ reason: 'id_token_invalid' });
  });

  it.each([
    ['expired', () => ({ iat: Math.floor(Date.now() / 1000) - 600, exp: Math.floor(Date.now() / 1000) - 300 })],
    ['for another audience', () => ({ aud: 'another-client' })],
    ['from another issuer', () => ({ iss: 'https://id.example.com' })],
  ])('is refused when %s', async (_case, claims) => {
    await useProvider((p) => (p.claims = claims()));
    expect((await login()).user).toBeNull();
    expect(await lastFailure()).toMatchObject({ reason: 'id_token_invalid' });
  });

  it('follows a key rotation: an unknown kid fetches the key set again', async () => {
    const provider = await useProvider();
    expect((await login()).user).not.toBeNull();
    expect(provider.hits.get('GET /jwks')).toBe(1);
    const old = provider.signer;
    provider.signer = signingKey();
    provider.published = [provider.signer];
    expect((await login()).user).not.toBeNull();
    expect(provider.hits.get('GET /jwks')).toBe(2);
    // The retired key no longer signs anything.
    provider.signer = old;
    expect((await login()).user).toBeNull();
    expect(await lastFailure()).toMatchObject({ reason: 'id_token_invalid' });
  });
});
