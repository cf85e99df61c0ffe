import type { Page } from 'playwright-core';
import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { seedUser, userCredential } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { nav, newContext, signIn, startRelaySession, type RelaySession } from './relay-session';

// The sign-in page says whose sign-in it is, and a refused request reads as words, in a real browser.
jest.setTimeout(120_000);

let relay: RelaySession;
const shots = screenshotter();
const PASSWORD = 'browser-password-1';

beforeAll(async () => {
  relay = await startRelaySession();
  const { pipeline } = relay;
  // A single-organization install: its organization is named on the sign-in page.
  await pipeline.store.prisma.organization.update({
    where: { id: DEFAULT_ORGANIZATION_ID },
    data: { name: 'Acme Corp' },
  });
  await seedUser(pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  const { authorization } = await userCredential(pipeline, 'admin');
  await pipeline.http
    .post('/rules')
    .set('authorization', authorization)
    .send({ name: 'billing', source: 'billing', target_url: 'https://billing.example.com/in' })
    .expect(201);
}, 240_000);

afterAll(async () => relay?.close());

describe('sign-in and errors', () => {
  let page: Page;
  beforeAll(async () => {
    page = await (await newContext(relay.browser)).newPage();
  });
  afterAll(async () => page.context().close());

  it('names the product and the organization on the sign-in page', async () => {
    await page.goto(`${relay.url}/app/login`);
    await page.getByText('Webhook relay', { exact: true }).waitFor();
    await page.getByTestId('login-organization').getByText('Acme Corp').waitFor();
    await shots.take(page, 'sign-in-named');
  });

  it('shows a refused rule (its name is taken) as a title and a sentence, never JSON', async () => {
    await signIn(page, relay.url, 'ada', PASSWORD);
    await nav(page, 'Rules');
    await page.getByRole('button', { name: 'New rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'New rule' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('billing');
    await dialog.getByRole('textbox', { name: 'Source' }).fill('invoices');
    await dialog.getByRole('textbox', { name: 'Target URL' }).fill('https://billing.example.com/invoices');
    const refused = page.waitForResponse((r) => r.request().method() === 'POST' && r.status() === 409);
    await dialog.getByRole('button', { name: 'Create' }).click();
    const problem = await (await refused).json();
    const alert = dialog.getByRole('alert');
    expect(problem).toMatchObject({ code: 'rule_name_taken' });
    // The API's title is its code's sentence, repeated as the detail: shown once, under a heading for the status.
    await alert.getByText('Conflict', { exact: true }).waitFor();
    const text = (await alert.textContent()) ?? '';
    expect(text.split(problem.detail as string)).toHaveLength(2);
    expect(text).toContain(`Request id: ${problem.request_id}`);
    expect(text).not.toContain('{');
    // Above the long form's fields, yet in view (not under the dialog's header) after pressing Create at its bottom.
    // (An expression: the tests' TypeScript has no DOM types.)
    const seen = await page.evaluate(`(() => {
      const el = document.querySelector('[role=dialog] [role=alert]');
      const box = el.getBoundingClientRect();
      const top = document.elementFromPoint(box.left + box.width / 2, box.top + 8);
      return top !== null && el.contains(top);
    })()`);
    expect(seen).toBe(true);
    await shots.take(page, 'problem-409');
  });
});
