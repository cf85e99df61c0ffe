import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import type { BrowserContext, Page } from 'playwright-core';
import { seedUser } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { nav, newContext, signIn, startRelaySession, type RelaySession } from './relay-session';

// The audit log in a real browser at 1280x800: its filters reach the API, its metadata opens readable,
// and long cells (e-mails, ids, actions, metadata) wrap instead of widening the table past the page.
jest.setTimeout(120_000);

let relay: RelaySession;
let context: BrowserContext;
let page: Page;
const PASSWORD = 'browser-password-1';
const shots = screenshotter();
const LONG_EMAIL = `${'a-very-long-mailbox-name-'.repeat(4)}@integration-partners.example.com`;

beforeAll(async () => {
  relay = await startRelaySession();
  await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  const metadata = {
    changed: ['target_url', 'active', 'retry_policy', 'dedup', 'verification', 'transform'],
    target_url: `https://hooks.example.com/${'segment/'.repeat(30)}`,
    note: 'x'.repeat(400),
  };
  // 60 wide entries (two pages), then 3 of another action by another actor.
  const rows = [
    ...Array.from({ length: 60 }, (_, i) => ({ action: 'rule.updated', email: LONG_EMAIL, i })),
    ...Array.from({ length: 3 }, (_, i) => ({ action: 'api_key.created', email: 'ops@example.com', i: 60 + i })),
  ];
  for (const r of rows) {
    await relay.pipeline.store.prisma.auditEntry.create({
      data: {
        organizationId: DEFAULT_ORGANIZATION_ID,
        actorUserId: '00000000-0000-7000-8000-00000000a0d1',
        actorEmail: r.email,
        action: r.action,
        resourceType: 'rule_destination_with_a_long_type_name',
        resourceId: `00000000-0000-7000-8000-${String(r.i).padStart(12, '0')}`,
        metadata,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, r.i)),
      },
    });
  }
  context = await newContext(relay.browser);
  page = await context.newPage();
  await signIn(page, relay.url, 'ada', PASSWORD);
}, 240_000);

afterAll(async () => {
  await context?.close();
  await relay?.close();
});

/** The audit table's and the page's overflow: a table wider than its box scrolls sideways. */
const overflow = (p: Page) =>
  p.evaluate<{ table: number; page: number }>(`(() => {
    const table = document.querySelector('[data-testid=audit-table]');
    const root = document.documentElement;
    return {
      table: Math.max(table.scrollWidth - table.clientWidth, table.scrollWidth - table.parentElement.clientWidth),
      page: root.scrollWidth - root.clientWidth,
    };
  })()`);

describe('the audit log at 1280x800', () => {
  it('fits the page, even with its metadata open', async () => {
    await nav(page, 'Access');
    await page.getByRole('tab', { name: 'Audit log' }).click();
    await page
      .getByTestId('audit-total')
      .getByText(/\d+ entries/)
      .waitFor();
    const total = await page.getByTestId('audit-total').textContent();
    expect(Number(total!.split(' ')[0])).toBeGreaterThanOrEqual(63);
    expect(await overflow(page)).toEqual({ table: expect.any(Number), page: 0 });
    expect((await overflow(page)).table).toBeLessThanOrEqual(0);

    await page.getByRole('button', { name: 'Show metadata of rule.updated' }).first().click();
    const json = page.locator('pre').filter({ hasText: '"changed": [' });
    await json.waitFor();
    await shots.take(page, 'audit-01-metadata-open');
    expect(await json.textContent()).toContain('\n  "note": "xxx');
    expect((await overflow(page)).table).toBeLessThanOrEqual(0);
    expect((await overflow(page)).page).toBe(0);
    await page.getByRole('button', { name: 'Hide metadata of rule.updated' }).click();
    await json.waitFor({ state: 'detached' });
  });

  it('filters by action and actor e-mail, with the total matching', async () => {
    const form = page.getByRole('form', { name: 'Audit filters' });
    await form.getByLabel('Action').fill('api_key.created');
    await form.getByRole('textbox', { name: 'Actor e-mail' }).fill('ops@example.com');
    await form.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('3 entries match', { exact: true }).waitFor();
    await shots.take(page, 'audit-02-filtered');
    const rows = page.getByTestId('audit-table').locator('tbody tr');
    expect(await rows.count()).toBe(3);
    for (const cell of await page.getByTestId('audit-table').locator('tbody tr td:nth-child(3)').all()) {
      expect(await cell.textContent()).toBe('api_key.created');
    }
    await form.getByRole('button', { name: 'Clear' }).click();
    await page.getByText(/^\d+ entries$/).waitFor();
    expect(await form.getByLabel('Action').inputValue()).toBe('');
    expect(await rows.count()).toBe(50);
    expect((await overflow(page)).page).toBe(0);
  });
});
