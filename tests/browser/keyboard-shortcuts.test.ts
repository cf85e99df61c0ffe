import type { BrowserContext, Page } from 'playwright-core';
import { seedUser } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { newContext, signIn, startRelaySession, type RelaySession } from './relay-session';

// Keyboard shortcuts (issue 31 item 7) in a real browser: "?" lists them, "g e" goes to the events list, and keys
// typed into a field stay text.
jest.setTimeout(120_000);

let relay: RelaySession;
const PASSWORD = 'browser-password-1';
const shots = screenshotter();

beforeAll(async () => {
  relay = await startRelaySession();
  await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
}, 240_000);

afterAll(async () => relay?.close());

describe('keyboard shortcuts', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await newContext(relay.browser);
    page = await context.newPage();
    await signIn(page, relay.url, 'ada', PASSWORD);
    await page.goto(`${relay.url}/app/`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });
  afterAll(async () => context.close());

  it('lists the shortcuts under "?"', async () => {
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    for (const label of ['Go to Overview', 'Go to Events', 'Go to Rules', 'Go to Access', 'Show these shortcuts'])
      await dialog.getByRole('cell', { name: label }).waitFor();
    await shots.take(page, 'shortcuts-01-help');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('goes to the events list with "g" then "e", and "/" puts the cursor in its search', async () => {
    await page.keyboard.press('g');
    await page.keyboard.press('e');
    await page.waitForURL((u) => u.pathname === '/app/events');
    const search = page.getByRole('textbox', { name: 'Search' });
    await search.waitFor();
    await page.keyboard.press('/');
    // Focused, and the "/" itself not typed: what follows lands in the field.
    await page.keyboard.type('stripe');
    expect(await search.inputValue()).toBe('stripe');
    await search.fill('');
  });

  it('takes keys typed into a field as text, not as shortcuts', async () => {
    const search = page.getByRole('textbox', { name: 'Search' });
    await search.focus();
    await page.keyboard.type('gr?go');
    expect(await search.inputValue()).toBe('gr?go');
    expect(new URL(page.url()).pathname).toBe('/app/events');
    expect(await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).count()).toBe(0);
  });
});
