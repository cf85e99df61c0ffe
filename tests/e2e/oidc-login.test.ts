import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { FAST_HASH_ENV, seedUser, startPipeline, type Pipeline } from './harness';
import { parseExposition, valueOf } from './metrics-text';
import { CookieJar, reservePort, startTestProvider, type TestProvider } from './oidc-test-provider';

// The identity-provider login against a real OpenID Connect provider (oidc-provider in a child process), the
// browser played by a cookie jar that follows redirects by hand.
let relay: Awaited<ReturnType<typeof reservePort>>;
let provider: TestProvider;
let pipeline: Pipeline;

const users = {
  alice: { email: 'alice@example.com', email_verified: true, preferred_username: 'alice', groups: ['staff'] },
  root: { email: 'root@example.com', email_verified: true, preferred_username: 'root', groups: ['relay-admins'] },
  mallory: { email: 'mallory@evil.example', email_verified: true, preferred_username: 'mallory' },
  unverified: { email: 'nobody@example.com', email_verified: false },
};

beforeAll(async () => {
  relay = await reservePort();
  const redirectUri = `${relay.url}/api/auth/callback/idp`;
  provider = await startTestProvider({ redirectUri, clientId: 'relay', clientSecret: 'relay-secret', users });
  pipeline = await startPipeline({
    worker: false,
    api: {
      PUBLIC_BASE_URL: relay.url,
      OIDC_ISSUER_URL: provider.issuer,
      OIDC_CLIENT_ID: 'relay',
      OIDC_CLIENT_SECRET: 'relay-secret',
      OIDC_PROVISIONING: 'domains',
      OIDC_ALLOWED_DOMAINS: 'example.com',
      OIDC_ROLE_CLAIM: 'groups',
      OIDC_ADMIN_VALUES: 'relay-admins',
      OIDC_BUTTON_LABEL: 'Sign in with Test ID',
      ...FAST_HASH_ENV,
    },
  });
  relay.serve(pipeline.api.app);
});

afterAll(async () => {
  await provider?.stop();
  await relay?.close();
  await pipeline?.close();
});

const isCallback = (url: URL) => url.pathname === '/api/auth/callback/idp';

/** Starts a login and lets the provider sign `user` in; answers the callback URL the browser would open. */
async function toCallback(jar: CookieJar, user: string, edit: (url: URL) => URL = (u) => u): Promise<URL> {
  const start = await jar.get(`${relay.url}/api/auth/idp?return_to=/app/events`);
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get('location')!);
  authorize.searchParams.set('login_hint', user);
  const { url } = await jar.follow(authorize.href, isCallback, edit);
  expect(isCallback(url)).toBe(true);
  return url;
}

const me = async (jar: CookieJar) =>
  (await (await jar.get(`${relay.url}/api/auth/me`)).json()) as Record<string, unknown> & {
    user: { id: string; username: string } | null;
  };

const failures = (reason: string) =>
  pipeline.store.prisma.auditEntry.findMany({
    where: { action: 'auth.login_failed', metadata: { path: ['reason'], equals: reason } },
  });

/** The callbacks refused for `reason` so far (relay_idp_callback_rejected_total). */
const rejected = async (of: Pipeline, reason: string) =>
  valueOf(parseExposition((await of.http.get('/metrics').expect(200)).text), 'relay_idp_callback_rejected_total', {
    reason,
  }) ?? 0;

/** A failed login: to the sign-in page with the reason as `?error=` (and the asked page), no session. */
async function expectSignInPage(response: Response, reason: string, jar: CookieJar, back?: string) {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!, relay.url);
  expect(location.origin + location.pathname).toBe(`${relay.url}/app/login`);
  expect(Object.fromEntries(location.searchParams)).toEqual({ error: reason, ...(back ? { redirect: back } : {}) });
  expect(await me(jar)).toMatchObject({ mechanism: 'none', user: null });
}

/** A login this browser started failed: the sign-in page says why, and the failure is audited once. */
async function expectFailure(response: Response, reason: string, jar: CookieJar) {
  await expectSignInPage(response, reason, jar, '/events');
  expect(await failures(reason)).toEqual([
    expect.objectContaining({
      organizationId: DEFAULT_ORGANIZATION_ID,
      metadata: expect.objectContaining({ method: 'idp' }),
    }),
  ]);
}

describe('identity-provider login (OpenID Connect)', () => {
  it('reports the login and its button on /config/oauth, never the client secret', async () => {
    const response = await fetch(`${relay.url}/config/oauth`);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      enabled: true,
      provider: 'oidc',
      issuer: provider.issuer,
      login_url: '/api/auth/idp',
      button_label: 'Sign in with Test ID',
      organization_name: 'Default organization',
    });
    expect(text).not.toContain('relay-secret');
  });

  it('redirects to the provider with PKCE (S256), state and nonce', async () => {
    const start = await new CookieJar().get(`${relay.url}/api/auth/idp`);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.origin).toBe(provider.issuer);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: 'relay',
      response_type: 'code',
      redirect_uri: `${relay.url}/api/auth/callback/idp`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
      state: expect.any(String),
      nonce: expect.any(String),
      code_challenge: expect.any(String),
    });
  });

  it('refuses a return_to that is not a path on this relay', async () => {
    for (const target of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const response = await new CookieJar().get(`${relay.url}/api/auth/idp?return_to=${encodeURIComponent(target)}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'validation_failed' });
    }
  });

  it('provisions a viewer at the first login and starts a session like the password login', async () => {
    const jar = new CookieJar();
    const callback = await jar.get((await toCallback(jar, 'alice')).href);
    expect(callback.status).toBe(302);
    expect(callback.headers.get('location')).toBe('/app/events');
    const who = await me(jar);
    expect(who).toMatchObject({ mechanism: 'session', login_method: 'idp', role: 'viewer', kind: 'user' });
    expect(who.user).toMatchObject({ username: 'alice' });
    const user = await pipeline.store.prisma.user.findUniqueOrThrow({ where: { id: who.user!.id } });
    expect(user).toMatchObject({ email: 'alice@example.com', passwordHash: null, roleManagedByIdp: true });
    const logins = await pipeline.store.prisma.auditEntry.findMany({ where: { action: 'auth.login' } });
    expect(logins).toEqual([
      expect.objectContaining({ actorUserId: user.id, metadata: expect.objectContaining({ method: 'idp' }) }),
    ]);
  });

  it('keeps the same user at the next login: one identity, found by issuer and subject', async () => {
    const jar = new CookieJar();
    await jar.get((await toCallback(jar, 'alice')).href);
    const who = await me(jar);
    expect(who.user).toMatchObject({ username: 'alice' });
    expect(await pipeline.store.prisma.user.count({ where: { email: 'alice@example.com' } })).toBe(1);
    expect(await pipeline.store.prisma.userIdentity.findMany({ where: { userId: who.user!.id } })).toEqual([
      expect.objectContaining({ issuer: provider.issuer, subject: 'alice' }),
    ]);
  });

  it('makes an admin of a member of the mapped group', async () => {
    const jar = new CookieJar();
    await jar.get((await toCallback(jar, 'root')).href);
    expect(await me(jar)).toMatchObject({ login_method: 'idp', role: 'admin', user: { username: 'root' } });
  });

  it('ends a tampered state without a session, counted but not audited', async () => {
    const before = await rejected(pipeline, 'state_mismatch');
    const jar = new CookieJar();
    const callback = await toCallback(jar, 'alice');
    callback.searchParams.set('state', 'forged-state');
    await expectSignInPage(await jar.get(callback.href), 'state_mismatch', jar, '/events');
    // Anyone can send a callback with a state of their choosing: it writes to no audit log.
    expect(await failures('state_mismatch')).toEqual([]);
    expect((await rejected(pipeline, 'state_mismatch')) - before).toBe(1);
  });

  it('ends an ID token with another nonce without a session', async () => {
    const jar = new CookieJar();
    const wrongNonce = (url: URL) => {
      if (url.origin === provider.issuer && url.pathname === '/auth') url.searchParams.set('nonce', 'not-ours');
      return url;
    };
    const callback = await toCallback(jar, 'alice', wrongNonce);
    await expectFailure(await jar.get(callback.href), 'id_token_invalid', jar);
    // Refused by the library's nonce check, not by anything earlier.
    expect((await failures('id_token_invalid'))[0]?.metadata).toMatchObject({ detail: 'unexpected "nonce" claim' });
  });

  it('ends a code used before without a session', async () => {
    const first = new CookieJar();
    const used = await toCallback(first, 'alice');
    expect((await first.get(used.href)).status).toBe(302);
    const second = new CookieJar();
    const replay = await toCallback(second, 'alice');
    replay.searchParams.set('code', used.searchParams.get('code')!);
    await expectFailure(await second.get(replay.href), 'code_rejected', second);
  });

  it('refuses a person outside the allowed domains, or whose e-mail the provider does not vouch for', async () => {
    // A jar each: the provider's own session would sign the first person in again.
    for (const [user, reason] of [
      ['mallory', 'domain_not_allowed'],
      ['unverified', 'email_not_verified'],
    ] as const) {
      const jar = new CookieJar();
      await expectFailure(await jar.get((await toCallback(jar, user)).href), reason, jar);
    }
    expect(await pipeline.store.prisma.user.count({ where: { email: { not: { endsWith: 'example.com' } } } })).toBe(0);
  });

  it('refuses a disabled user', async () => {
    await pipeline.store.prisma.user.update({ where: { username: 'alice' }, data: { disabledAt: new Date() } });
    try {
      const jar = new CookieJar();
      await expectFailure(await jar.get((await toCallback(jar, 'alice')).href), 'user_disabled', jar);
    } finally {
      await pipeline.store.prisma.user.update({ where: { username: 'alice' }, data: { disabledAt: null } });
    }
  });

  it('answers a callback without a login started in this browser (not audited), and a provider error', async () => {
    const stranger = new CookieJar();
    const callback = await toCallback(new CookieJar(), 'alice');
    await expectSignInPage(await stranger.get(callback.href), 'no_login_in_progress', stranger);
    expect(await failures('no_login_in_progress')).toEqual([]);
    // A login started here that the provider refused is a person's failed login: audited.
    const jar = new CookieJar();
    const denied = await toCallback(jar, 'nobody-known');
    expect(denied.searchParams.get('error')).toBe('access_denied');
    await expectFailure(await jar.get(denied.href), 'provider_error', jar);
  });

  it('tells a password session from an identity-provider one', async () => {
    await seedUser(pipeline, { username: 'paula', role: 'viewer', password: 'paula-password-1' });
    const jar = new CookieJar();
    const login = await fetch(`${relay.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ username: 'paula', password: 'paula-password-1' }),
    });
    expect(login.status).toBe(200);
    jar.store(`${relay.url}/api/auth/login`, login);
    expect(await me(jar)).toMatchObject({ mechanism: 'session', login_method: 'password' });
  });

  it('audits a provider that cannot be reached when the login starts, and sends to the sign-in page', async () => {
    const unreachable = await startPipeline({
      worker: false,
      api: { OIDC_ISSUER_URL: 'http://127.0.0.1:1', OIDC_CLIENT_ID: 'relay' },
    });
    try {
      const response = await unreachable.http.get('/api/auth/idp?return_to=/app/rules').expect(302);
      expect(response.headers.location).toBe('/app/login?error=provider_unreachable&redirect=%2Frules');
      expect(await unreachable.store.prisma.auditEntry.count({ where: { action: 'auth.login_failed' } })).toBe(1);
    } finally {
      await unreachable.close();
    }
  });

  // Last: the provider is gone afterwards.
  it('ends the login without a session when the provider cannot be reached', async () => {
    const jar = new CookieJar();
    const callback = await toCallback(jar, 'alice');
    await provider.stop();
    await expectFailure(await jar.get(callback.href), 'provider_unreachable', jar);
  });
});

describe('anonymous callbacks and the audit log', () => {
  const anonymousCallbacks = async (of: Pipeline) => {
    const audited = () => of.store.prisma.auditEntry.count();
    const [entries, counted] = [await audited(), await rejected(of, 'no_login_in_progress')];
    for (let i = 0; i < 5; i++) {
      const response = await of.http.get('/api/auth/callback/idp?code=x&state=y').expect(302);
      expect(response.headers.location).toBe('/app/login?error=no_login_in_progress');
      // No session is made for it either.
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    // Nothing in any organization's audit log (nor the platform's); the metric counts them.
    expect((await audited()) - entries).toBe(0);
    expect((await rejected(of, 'no_login_in_progress')) - counted).toBe(5);
  };

  it('writes nothing for callbacks of an unknown state with an identity provider configured', async () => {
    await anonymousCallbacks(pipeline);
  });

  it('writes nothing for callbacks of an unknown state without an identity provider', async () => {
    const bare = await startPipeline({ worker: false });
    try {
      await anonymousCallbacks(bare);
    } finally {
      await bare.close();
    }
  });
});
