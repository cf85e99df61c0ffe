import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { seedUser, userCredential } from '../e2e/harness';
import { seriousViolations } from './axe-check';
import { signIn, startRelaySession, type RelaySession } from './relay-session';

// Issue 31 item 7: axe-core on every page of the dashboard, as each role sees it, requiring no serious or critical
// violation; and the built assets going out compressed to a real browser.
jest.setTimeout(120_000);

const PASSWORD = 'browser-password-1';
const OPERATOR_TOKEN = 'browser-operator-bootstrap-token-a11y';
let relay: RelaySession;
let target: TargetServer;
let refusing: TargetServer;
let eventId: string;
let ruleId: string;
let operatorPassword: string;
let organizationId: string;

beforeAll(async () => {
  target = await startTargetServer();
  refusing = await startTargetServer();
  refusing.replyWith(500);
  relay = await startRelaySession({ PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN });
  await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  const { authorization } = await userCredential(relay.pipeline, 'admin');
  const rule = await relay.pipeline.http
    .post('/rules')
    .set('authorization', authorization)
    .send({ source: 'github', target_url: `${target.url}/hook` })
    .expect(201);
  ruleId = rule.body.id;
  const res = await fetch(`${relay.url}/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ref: 'refs/heads/main' }),
  });
  expect(res.status).toBe(202);
  eventId = ((await res.json()) as { id: string }).id;
  await relay.pipeline.waitForStatus(eventId, 'delivered', 30_000);
  // A failed event beside the delivered one: every status colour the pages show is checked for contrast.
  await relay.pipeline.http
    .post('/rules')
    .set('authorization', authorization)
    .send({ source: 'stripe', target_url: `${refusing.url}/hook`, delivery_policy: { max_attempts: 1 } })
    .expect(201);
  const failed = await fetch(`${relay.url}/stripe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(failed.status).toBe(202);
  await relay.pipeline.waitForStatus(((await failed.json()) as { id: string }).id, 'failed', 30_000);
  const operator = await relay.pipeline.http
    .post('/api/platform/bootstrap/operator')
    .set('authorization', `Bearer ${OPERATOR_TOKEN}`)
    .send({ username: 'root' })
    .expect(201);
  operatorPassword = operator.body.password;
  const me = await relay.pipeline.http.get('/api/auth/me').set('authorization', authorization).expect(200);
  organizationId = me.body.organization.id;
}, 240_000);

afterAll(async () => {
  await relay?.close();
  await target?.close();
  await refusing?.close();
});

/** Opens `path` under /app, waits for what says the page has rendered, and answers axe's serious findings. */
async function audit(page: Page, path: string, ready: (page: Page) => Promise<void>) {
  await page.goto(`${relay.url}/app${path}`);
  await ready(page);
  // The page's data has arrived: no loader left, neither a spinner nor a page's skeleton (PageLoader).
  await page.waitForFunction('!document.querySelector(".mantine-Loader-root, [aria-busy=true]")', undefined, {
    timeout: 30_000,
  });
  return seriousViolations(page);
}

// axe-core is injected as an inline script, which the dashboard's Content Security Policy rightly refuses.
const newContext = (browser: Browser) =>
  browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });

const heading = (name: string | RegExp) => (page: Page) =>
  page.getByRole('heading', { name, level: 2 }).first().waitFor({ timeout: 30_000 });

describe('axe-core finds no serious or critical violation', () => {
  it('on the pages anyone reaches before signing in', async () => {
    const context = await newContext(relay.browser);
    try {
      const page = await context.newPage();
      expect(await audit(page, '/login', heading('Sign in'))).toEqual([]);
      expect(await audit(page, '/set-password?code=abc', heading('Set your password'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  describe("on every page of an organization's admin", () => {
    let context: BrowserContext;
    let page: Page;
    beforeAll(async () => {
      context = await newContext(relay.browser);
      page = await context.newPage();
      await signIn(page, relay.url, 'ada', PASSWORD);
    });
    afterAll(() => context.close());

    it.each([
      ['/', 'Overview'],
      ['/events', 'Events'],
      ['/rules', 'Rules'],
      ['/send', 'Send a webhook'],
      ['/settings', 'Settings'],
      ['/access', 'Access'],
      ['/domains', 'Custom domains'],
      ['/account', 'Account'],
    ])('%s', async (path, name) => {
      expect(await audit(page, path, heading(name))).toEqual([]);
    });

    it('an event', async () => {
      expect(await audit(page, `/events/${eventId}`, heading('github'))).toEqual([]);
    });

    it('a rule', async () => {
      expect(
        await audit(page, `/rules/${ruleId}`, (p) => p.getByRole('heading', { level: 2 }).first().waitFor()),
      ).toEqual([]);
    });
  });

  it("on the platform console and an organization's page, as an operator", async () => {
    const context = await newContext(relay.browser);
    try {
      const page = await context.newPage();
      await signIn(page, relay.url, 'root', operatorPassword);
      expect(await audit(page, '/platform', heading('Platform'))).toEqual([]);
      expect(
        await audit(page, `/platform/organizations/${organizationId}`, (p) =>
          p.getByRole('heading', { level: 2 }).first().waitFor(),
        ),
      ).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the built assets', () => {
  it('reach the browser compressed, each script and style sheet', async () => {
    const context = await newContext(relay.browser);
    try {
      const page = await context.newPage();
      const assets: Response[] = [];
      page.on('response', (response) => {
        if (/\.(js|css)$/.test(new URL(response.url()).pathname)) assets.push(response);
      });
      await page.goto(`${relay.url}/app/login`);
      await heading('Sign in')(page);
      const seen: Record<string, string | null> = {};
      const expected: Record<string, string | null> = {};
      for (const response of assets) {
        const asset = new URL(response.url()).pathname;
        seen[asset] = response.headers()['content-encoding'] ?? null;
        // Chromium accepts brotli: every asset comes precompressed as such, but those under 1 KB (not worth it).
        expected[asset] = (await response.body()).length >= 1024 ? 'br' : null;
      }
      expect(Object.values(expected)).toContain('br');
      expect(seen).toEqual(expected);
    } finally {
      await context.close();
    }
  });
});
