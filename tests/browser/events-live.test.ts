import type { BrowserContext, Page } from 'playwright-core';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { seedUser, userCredential } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { newContext, signIn, startRelaySession, type RelaySession } from './relay-session';

// The live events list (issue 31 item 1) in a real browser against the real api, worker, Postgres and Redis: a row
// that arrives and turns failed while the page is open shows its reason and last error without a reload; its
// relative time moves on; the chosen columns survive a reload; the needs-attention shortcut counts and filters.
jest.setTimeout(120_000);

let relay: RelaySession;
let target: TargetServer;
const shots = screenshotter();
const PASSWORD = 'browser-password-1';

/** Ingests a webhook through the rule's source and returns the event's id. */
async function send(n: number): Promise<string> {
  const res = await fetch(`${relay.url}/shop`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order: n }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

/** The text of a row's cell under the column headed `name` (strings: this project's TypeScript has no DOM types). */
const cellText = (page: Page, eventId: string, name: string) =>
  page.evaluate<string | null>(`(() => {
    const link = document.querySelector('a[href$="/events/${eventId}"]');
    const row = link && link.closest('tr');
    if (!row) return null;
    const headers = [...row.closest('table').querySelectorAll('thead th')].map((th) => th.textContent);
    const cell = row.children[headers.indexOf(${JSON.stringify(name)})];
    return cell ? cell.textContent : null;
  })()`);
const headers = (page: Page) =>
  page.evaluate<string[]>(
    `[...document.querySelectorAll('[data-testid="events-table"] thead th')].map((th) => th.textContent)`,
  );

/**
 * Until the page's expression `js` is true (polled with evaluate: the dashboard's CSP refuses the eval that
 * waitForFunction's string form needs).
 */
const until = (page: Page, js: string, what: string) =>
  waitFor(async () => (await page.evaluate<boolean>(js)) || undefined, 30_000, what);

beforeAll(async () => {
  target = await startTargetServer();
  // Refused for good: a 4xx is final, so the event fails at its first attempt.
  target.replyWith({ status: 400, body: 'bad order' });
  relay = await startRelaySession();
  await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  const { authorization } = await userCredential(relay.pipeline, 'admin');
  await relay.pipeline.http
    .post('/rules')
    .set('authorization', authorization)
    .send({ source: 'shop', target_url: `${target.url}/orders` })
    .expect(201);
  console.log(`dashboard screenshots: ${shots.dir}`);
}, 240_000);

afterAll(async () => {
  await relay?.close();
  await target?.close();
});

describe('the live events list', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await newContext(relay.browser);
    page = await context.newPage();
    await signIn(page, relay.url, 'ada', PASSWORD);
  });
  afterAll(() => context.close());

  it('shows a row that arrives and fails live with its reason and last error, without a reload', async () => {
    await page.goto(`${relay.url}/app/events`);
    await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
    await page.getByText('No events yet', { exact: false }).waitFor();
    // A reload would lose this mark.
    await page.evaluate('window.__sameDocument = true');
    const id = await send(1);
    await relay.pipeline.waitForStatus(id, 'failed', 30_000);
    await page.locator(`a[href$="/events/${id}"]`).waitFor();
    // Only the live feed can bring it: the page is the same document it was before the event existed.
    await until(
      page,
      `(() => {
        const link = document.querySelector('a[href$="/events/${id}"]');
        return Boolean(link) && /HTTP 400/.test(link.closest('tr').textContent);
      })()`,
      'the live row to show its last error',
    );
    expect(await cellText(page, id, 'Status')).toBe('failed');
    expect(await cellText(page, id, 'Reason')).toBe('http_status');
    expect(await cellText(page, id, 'Last error')).toContain('HTTP 400');
    expect(await cellText(page, id, 'Target')).toBe(`${target.url}/orders`);
    expect(await cellText(page, id, 'Attempts')).toBe('1');
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await shots.take(page, 'events-live');
  });

  it("moves a row's relative time on while the page stays open", async () => {
    const id = await send(2);
    await page.locator(`a[href$="/events/${id}"]`).waitFor();
    expect(await cellText(page, id, 'Received')).toMatch(/now|second/);
    // Nothing reloads the list here: only the page's clock can take the time to two seconds and beyond.
    await until(
      page,
      `(() => {
        const row = document.querySelector('a[href$="/events/${id}"]').closest('tr');
        return /^([2-9]|\\d{2,}) seconds ago$/.test(row.querySelector('time').textContent);
      })()`,
      'the relative time to move on',
    );
  });

  it('counts what needs attention and filters the list by it in one click', async () => {
    const shortcut = page.getByRole('button', { name: /^Needs attention/ });
    // Two failed events by now (the 400 answers every attempt), none acknowledged.
    await relay.pipeline.waitForStatus(await send(3), 'failed', 30_000);
    await until(page, `document.querySelector('[data-testid="attention-count"]')?.textContent === '3'`, 'a count of 3');
    await shortcut.click();
    await page.waitForURL((u) => u.searchParams.get('needs_attention') === 'true');
    expect(await shortcut.getAttribute('aria-pressed')).toBe('true');
    await until(
      page,
      `[...document.querySelectorAll('[data-testid="event-row"]')].length === 3 &&
       [...document.querySelectorAll('[data-testid="event-row"]')].every((r) => /failed/.test(r.textContent))`,
      'the page to show it',
    );
    await shortcut.click();
    await page.waitForURL((u) => !u.searchParams.has('needs_attention'));
  });

  it('remembers the chosen columns across a reload, and the filters on the next visit', async () => {
    await page.locator('[data-testid="event-row"]').first().waitFor();
    expect(await headers(page)).toContain('Target');
    await page.getByRole('button', { name: 'Columns' }).click();
    await page.getByRole('checkbox', { name: 'Target' }).uncheck();
    await until(
      page,
      `![...document.querySelectorAll('[data-testid="events-table"] thead th')].some((th) => th.textContent === 'Target')`,
      'the page to show it',
    );
    await page.reload();
    await page.locator('[data-testid="event-row"]').first().waitFor();
    expect(await headers(page)).not.toContain('Target');
    expect(await headers(page)).toContain('Last error');
    // A filter chosen now is where the next plain visit of the page starts.
    await page.getByRole('button', { name: /^Needs attention/ }).click();
    await page.waitForURL((u) => u.searchParams.get('needs_attention') === 'true');
    await page.goto(`${relay.url}/app/`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Events' }).click();
    await page.waitForURL((u) => u.pathname === '/app/events' && u.searchParams.get('needs_attention') === 'true');
  });
});
