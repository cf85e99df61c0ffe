import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { seedUser, userCredential, type Pipeline } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { newContext, startRelaySession, type RelaySession } from './relay-session';

// The dashboard in a real browser against the real api, worker, Postgres and Redis.
jest.setTimeout(120_000);

let relay: RelaySession;
let pipeline: Pipeline;
let target: TargetServer;
let browser: Browser;
const shots = screenshotter();
const PASSWORD = 'browser-password-1';
const OPERATOR_TOKEN = 'browser-operator-bootstrap-token';

beforeAll(async () => {
  target = await startTargetServer();
  relay = await startRelaySession({ PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN });
  ({ pipeline, browser } = relay);
  await seedUser(pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  await seedUser(pipeline, { username: 'vic', role: 'viewer', password: PASSWORD });
  const { authorization } = await userCredential(pipeline, 'admin');
  await pipeline.http
    .post('/rules')
    .set('authorization', authorization)
    .send({ source: 'live', target_url: `${target.url}/ok` })
    .expect(201);
  console.log(`dashboard screenshots: ${shots.dir}`);
}, 240_000);

afterAll(async () => {
  await relay?.close();
  await target?.close();
});

async function signIn(context: BrowserContext, username: string, path = '/app/events'): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${relay.url}${path}`);
  await page.waitForURL(/\/app\/login\?redirect=/);
  await page.getByRole('textbox', { name: 'Username' }).fill(username);
  await page.locator('input[type=password]').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return page;
}

describe('the dashboard in a browser', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await newContext(browser);
  });
  afterAll(async () => context.close());

  it('signs in and returns to the page asked for', async () => {
    page = await signIn(context, 'ada');
    // The live feed answers once it is subscribed: from then on no new event can be missed.
    const streamOpen = page.waitForResponse((r) => new URL(r.url()).pathname === '/events/stream');
    await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/events');
    expect((await streamOpen).status()).toBe(200);
    await shots.take(page, '01-events-empty');
  });

  it('shows an ingested webhook live, without a reload', async () => {
    const res = await fetch(`${relay.url}/live`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hello: 'browser' }),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    await page.getByRole('link', { name: 'live' }).first().waitFor({ timeout: 15_000 });
    await shots.take(page, '02-events-live');
    await pipeline.waitForStatus(id, 'delivered');
  });

  it('opens the event and reads its payload and attempts', async () => {
    await page.getByRole('link', { name: 'live' }).first().click();
    await page.getByTestId('payload').getByText('"hello": "browser"').waitFor();
    await page.getByTestId('attempts').getByText('200', { exact: true }).first().waitFor();
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    await shots.take(page, '03-event-detail');
  });

  it('retries a failed event from the UI once the target is fixed, and sees it delivered', async () => {
    target.replyWith(500);
    const res = await fetch(`${relay.url}/live`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hello: 'retry' }),
    });
    const { id } = (await res.json()) as { id: string };
    await pipeline.waitForStatus(id, 'failed', 20_000);
    target.replyWith(200);
    await page.goto(`${relay.url}/app/events/${id}`);
    await page.getByText('failed', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Retry' }).click();
    await pipeline.waitForStatus(id, 'delivered', 20_000);
    await page.getByText('delivered', { exact: true }).first().waitFor({ timeout: 10_000 });
    await shots.take(page, '04-event-retried');
  });

  it('shows the overview', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('Success rate').waitFor();
    await shots.take(page, '05-overview');
  });

  it('shows where the keyboard focus is', async () => {
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    // A string: this project's TypeScript has no DOM types, the page has.
    const outline = await page.evaluate<{ tag: string; style: string; width: string }>(`(() => {
      const style = getComputedStyle(document.activeElement);
      return { tag: document.activeElement.tagName, style: style.outlineStyle, width: style.outlineWidth };
    })()`);
    expect(outline.tag).not.toBe('BODY');
    expect(outline.style).not.toBe('none');
    expect(outline.width).not.toBe('0px');
  });

  it('reaches every page of the navigation bar, each with its heading (screenshots)', async () => {
    for (const label of ['Rules', 'Send', 'Domains', 'Access', 'Settings', 'Events']) {
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: label }).click();
      await page.locator('main h2').first().waitFor();
      // No page answers an admin with a problem (a 4xx/5xx shown as an alert).
      await page.locator('main [aria-busy=true]').first().waitFor({ state: 'detached' });
      expect(await page.locator('main [role=alert]').allTextContents()).toEqual([]);
      await shots.take(page, `page-${label.toLowerCase()}`);
    }
    // Usable at tablet width too (the navigation collapses behind a burger below 768 px).
    await page.setViewportSize({ width: 768, height: 1024 });
    await shots.take(page, 'page-events-tablet');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${relay.url}/app/events`);
    await page.waitForURL(/\/app\/login/);
    await shots.take(page, '06-login');
  });
});

describe('a viewer', () => {
  it('sees no write controls', async () => {
    const context = await newContext(browser);
    try {
      const page = await signIn(context, 'vic');
      await page.getByRole('link', { name: 'live' }).first().waitFor();
      expect(await page.getByRole('checkbox').count()).toBe(0);
      expect(await page.getByRole('button', { name: /Retry|Delete/ }).count()).toBe(0);
      await page.getByRole('link', { name: 'live' }).first().click();
      await page.getByTestId('payload').waitFor();
      expect(await page.getByRole('button', { name: /Retry|Delete|Acknowledge/ }).count()).toBe(0);
      await shots.take(page, '07-viewer-event');
    } finally {
      await context.close();
    }
  });
});

describe('a platform operator', () => {
  it('lands in the platform console after signing in', async () => {
    const created = await pipeline.http
      .post('/api/platform/bootstrap/operator')
      .set('authorization', `Bearer ${OPERATOR_TOKEN}`)
      .send({ username: 'root' })
      .expect(201);
    const context = await newContext(browser);
    try {
      const page = await context.newPage();
      await page.goto(`${relay.url}/app/login`);
      await page.getByRole('textbox', { name: 'Username' }).fill('root');
      await page.locator('input[type=password]').fill(created.body.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/app\/platform$/);
      const nav = page.getByRole('navigation', { name: 'Main navigation' });
      await nav.getByRole('link', { name: 'Platform' }).waitFor();
      expect(await nav.getByRole('link', { name: 'Events' }).count()).toBe(0);
      await page.locator('main h2').first().waitFor();
      await shots.take(page, '08-platform');
    } finally {
      await context.close();
    }
  });
});
