import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import type { BrowserContext, Page } from 'playwright-core';
import { seedUser } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { signIn, startRelaySession, type RelaySession } from './relay-session';
import { newEventId, reopenEvents } from '@relay/test-support';

// The overview (issue 31 item 6) in a real browser against the real api and Postgres: events by status as stacked
// bars per bucket, the failure-rate line, and the top failing rule linking to exactly its failed events.
jest.setTimeout(120_000);

let relay: RelaySession;
const shots = screenshotter();
const PASSWORD = 'browser-password-1';
const HOUR = 3_600_000;
// Hours in UTC (the browser context's zone too), so the page's buckets start where these do.
const hourStart = (t: number) => Math.floor(t / HOUR) * HOUR;
const now = Date.now();
const earlier = hourStart(now) - 2 * HOUR;
const later = hourStart(now) - HOUR;
let billingFailed: string[];

type Final = 'delivered' | 'failed' | 'ignored';
async function seed(ruleId: string, source: string, status: Final, hour: number): Promise<string> {
  const id = newEventId();
  await relay.pipeline.store.prisma.event.create({
    data: {
      id,
      organizationId: DEFAULT_ORGANIZATION_ID,
      source,
      ruleId,
      status,
      body: Buffer.from('{}'),
      headers: {},
      createdAt: new Date(hour + 10 * 60_000),
      deliveredAt: status === 'delivered' ? new Date(hour + 10 * 60_000 + 50) : null,
      failureReason: status === 'failed' ? 'http_500' : null,
    },
  });
  await reopenEvents(relay.pipeline.store.pool, [id]);
  return id;
}

beforeAll(async () => {
  relay = await startRelaySession();
  await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  const rule = (name: string) =>
    relay.pipeline.store.prisma.rule.create({
      data: { organizationId: DEFAULT_ORGANIZATION_ID, name, source: name, targetUrl: `https://${name}.example.com/` },
    });
  const [billing, crm] = [await rule('billing'), await rule('crm')];
  // Two hours ago: 3 delivered, 2 failed (billing); an hour ago: 1 delivered, 1 ignored (billing), 1 failed (crm).
  for (let i = 0; i < 3; i++) await seed(billing.id, 'billing', 'delivered', earlier);
  billingFailed = [
    await seed(billing.id, 'billing', 'failed', earlier),
    await seed(billing.id, 'billing', 'failed', earlier),
  ];
  await seed(billing.id, 'billing', 'delivered', later);
  await seed(billing.id, 'billing', 'ignored', later);
  await seed(crm.id, 'crm', 'failed', later);
  console.log(`dashboard screenshots: ${shots.dir}`);
}, 240_000);

afterAll(async () => relay?.close());

describe('the overview', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await relay.browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' });
    page = await context.newPage();
    await signIn(page, relay.url, 'ada', PASSWORD);
    await page.goto(`${relay.url}/app/?window=24h`);
  });
  afterAll(async () => context.close());

  it('stacks the events of each hour by status, and draws the failure rate of each hour', async () => {
    const chart = page.getByTestId('status-chart');
    await chart.waitFor();
    const bucket = (t: number) => chart.locator(`[data-testid=bucket][data-start="${new Date(t).toISOString()}"]`);
    const segments = async (t: number) => {
      const counts: Record<string, number> = {};
      for (const link of await bucket(t).locator('a[data-status]').all())
        counts[(await link.getAttribute('data-status'))!] = Number(await link.getAttribute('data-count'));
      return counts;
    };
    expect(await chart.getByTestId('bucket').count()).toBe(24);
    expect(await segments(earlier)).toEqual({ delivered: 3, failed: 2 });
    expect(await segments(later)).toEqual({ delivered: 1, failed: 1, ignored: 1 });
    // Stacked: one bar per hour, its segments one on top of the other, each as tall as its count.
    const boxes = [];
    for (const rect of await bucket(earlier).locator('a[data-status] rect').all())
      boxes.push({ y: Number(await rect.getAttribute('y')), h: Number(await rect.getAttribute('height')) });
    expect(boxes[1]!.y + boxes[1]!.h).toBeCloseTo(boxes[0]!.y, 5);
    expect(boxes[0]!.h / boxes[1]!.h).toBeCloseTo(3 / 2, 5);
    const rates = [];
    for (const point of await chart.getByTestId('failure-rate-point').all())
      rates.push(Number(await point.getAttribute('data-rate')));
    expect(rates).toEqual([0.4, 0.5]);
    await chart.getByTestId('failure-rate-line').waitFor();
    await shots.take(page, 'overview-01-status-chart');
  });

  it('links the top failing rule to the events list showing exactly its failed events', async () => {
    const rules = page.getByRole('table', { name: 'Top failing rules' });
    const names = await rules.locator('tbody tr td:first-child').allTextContents();
    expect(names).toEqual(['billing', 'crm']);
    // billing: 2 failed of 6 finished (its ignored event is no delivery outcome), as the success rate counts.
    await rules.getByRole('row').filter({ hasText: 'billing' }).getByRole('cell', { name: '33.3 %' }).waitFor();
    await rules.getByRole('link', { name: '2 failed events of billing' }).click();
    await page.waitForURL((u) => u.pathname === '/app/events' && u.searchParams.get('status') === 'failed');
    const url = new URL(page.url());
    expect(url.searchParams.get('rule_id')).toMatch(/^[0-9a-f-]{36}$/);
    await page.getByText(/^rule [0-9a-f]{8}$/).waitFor();
    // The list shows these two, and nothing else: crm's failure and billing's delivered events are left out.
    for (const id of billingFailed) await page.getByRole('checkbox', { name: `Select event ${id}` }).waitFor();
    const shown = [];
    for (const box of await page.getByTestId('event-row').getByRole('checkbox').all())
      shown.push((await box.getAttribute('aria-label'))!.replace('Select event ', ''));
    expect(shown.sort()).toEqual([...billingFailed].sort());
  });
});
