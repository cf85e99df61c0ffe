import { rmSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { FAST_HASH_ENV, startPipeline, type Pipeline } from '../e2e/harness';
import { reservePort, startTestProvider, type TestProvider } from '../e2e/oidc-test-provider';
import { buildDashboard, launchBrowser, screenshotter } from './browser-harness';
import { newContext } from './relay-session';

// The dashboard's identity-provider button in a real browser: a real OpenID Connect provider (oidc-provider in a
// child process) on loopback, the api serving the built dashboard on a port known before it starts (the provider
// registers its callback URL).
jest.setTimeout(120_000);

let relay: Awaited<ReturnType<typeof reservePort>>;
let provider: TestProvider;
let pipeline: Pipeline;
let browser: Browser;
let dashboardDir: string;
const shots = screenshotter();

beforeAll(async () => {
  dashboardDir = buildDashboard();
  relay = await reservePort();
  provider = await startTestProvider({
    redirectUri: `${relay.url}/api/auth/callback/idp`,
    clientId: 'relay',
    clientSecret: 'relay-secret',
    users: { alice: { email: 'alice@example.com', email_verified: true, preferred_username: 'alice' } },
  });
  pipeline = await startPipeline({
    worker: false,
    api: {
      ...FAST_HASH_ENV,
      SESSION_SECRET: 'browser-test',
      DASHBOARD_DIR: dashboardDir,
      PUBLIC_BASE_URL: relay.url,
      OIDC_ISSUER_URL: provider.issuer,
      OIDC_CLIENT_ID: 'relay',
      OIDC_CLIENT_SECRET: 'relay-secret',
      OIDC_PROVISIONING: 'verified_email',
      OIDC_BUTTON_LABEL: 'Sign in with Test ID',
    },
  });
  relay.serve(pipeline.api.app);
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await provider?.stop();
  await relay?.close();
  await pipeline?.close();
  if (dashboardDir) rmSync(dashboardDir, { recursive: true, force: true });
});

it('signs in through the identity provider from the sign-in page and comes back to the asked page', async () => {
  const context = await newContext(browser);
  try {
    // The test provider signs in whoever the authorization request's login_hint names (a person would type a
    // name there): the relay's redirect to the provider gets the hint added, its cookie passed on as it is.
    // (A route does not see the requests of a redirect, so the relay's answer is the one rewritten.)
    await context.route(
      (url) => url.href.startsWith(`${relay.url}/api/auth/idp`),
      async (route) => {
        const response = await route.fetch({ maxRedirects: 0 });
        const location = new URL(response.headers().location ?? '');
        location.searchParams.set('login_hint', 'alice');
        await route.fulfill({ response, headers: { ...response.headers(), location: location.href } });
      },
    );
    const page = await context.newPage();
    await page.goto(`${relay.url}/app/events?status=failed`);
    await page.waitForURL((u) => u.pathname === '/app/login');
    const button = page.getByRole('link', { name: 'Sign in with Test ID' });
    await button.waitFor();
    await shots.take(page, 'idp-01-login-button');
    await button.click();

    // Provider and callback, then back on the page that asked for the sign-in.
    await page.waitForURL((u) => u.pathname === '/app/events');
    expect(new URL(page.url()).searchParams.get('status')).toBe('failed');
    await page.getByTestId('who').getByText('alice (viewer)').waitFor();
    await shots.take(page, 'idp-02-signed-in');
    const me = await page.request.get(`${relay.url}/api/auth/me`);
    expect(await me.json()).toMatchObject({
      mechanism: 'session',
      login_method: 'idp',
      user: { username: 'alice' },
      role: 'viewer',
    });

    // The Account page says how the session started.
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Account' }).click();
    await page
      .getByText(/through the identity provider/)
      .first()
      .waitFor();
  } finally {
    await context.close();
  }
});

it('lands a failed identity-provider login on the sign-in page, which says why', async () => {
  const context = await newContext(browser);
  try {
    const page = await context.newPage();
    // A callback of no login started in this browser (a stale tab, a forged link): no JSON problem page.
    await page.goto(`${relay.url}/api/auth/callback/idp?code=x&state=y`);
    await page.waitForURL((u) => u.pathname === '/app/login');
    const alert = page.getByRole('alert');
    await alert.getByText('Sign-in through the identity provider failed').waitFor();
    await alert.getByText(/was started in this browser, or it took too long/).waitFor();
    await shots.take(page, 'idp-03-login-failed');
    // Nothing in the audit log for it.
    expect(await pipeline.store.prisma.auditEntry.count({ where: { action: 'auth.login_failed' } })).toBe(0);
  } finally {
    await context.close();
  }
});
