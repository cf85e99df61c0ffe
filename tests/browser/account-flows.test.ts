import type { BrowserContext, Page } from 'playwright-core';
import { seedUser } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { nav, newContext, signIn, startRelaySession, type RelaySession } from './relay-session';

// The account lifecycle in a real browser against the real api, Postgres and Redis: an admin disables a user
// (whose open session ends), a user changes their password on the Account page, and an admin's set-password link.
jest.setTimeout(120_000);

let relay: RelaySession;
const shots = screenshotter();
const PASSWORD = 'browser-password-1';
const NEW_PASSWORD = 'Correct-Horse-Battery-9';

beforeAll(async () => {
  relay = await startRelaySession();
  await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  for (const username of ['dora', 'pete', 'rita'])
    await seedUser(relay.pipeline, { username, role: 'viewer', password: PASSWORD });
  console.log(`dashboard screenshots: ${shots.dir}`);
}, 240_000);

afterAll(async () => relay?.close());

/** A new browser context signed in as `username`; the caller closes the context. */
async function signedIn(username: string, password = PASSWORD): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(relay.browser);
  const page = await context.newPage();
  await signIn(page, relay.url, username, password);
  return { context, page };
}

const loginStatus = async (username: string, password: string) =>
  (await relay.pipeline.http.post('/api/auth/login').send({ username, password })).status;

/** Whether the page's cookies still make a session the API accepts. */
async function signedInAs(page: Page): Promise<string | null> {
  const answer = await page.request.get(`${relay.url}/api/auth/me`);
  if (!answer.ok()) return null;
  const me = (await answer.json()) as { mechanism: string; user?: { username: string } | null };
  return me.mechanism === 'session' ? (me.user?.username ?? null) : null;
}

/** The Users tab's row of one user. */
const userRow = (page: Page, username: string) => page.getByRole('row', { name: new RegExp(`^${username} `) });

/** Confirms the open ConfirmButton dialog with its `label` button. */
async function confirmDialog(page: Page, label: string) {
  const dialog = page.getByRole('dialog', { name: 'Please confirm' });
  await dialog.getByRole('button', { name: label }).click();
  await dialog.waitFor({ state: 'detached' });
}

describe('the account lifecycle in the dashboard', () => {
  let admin: { context: BrowserContext; page: Page };
  beforeAll(async () => {
    admin = await signedIn('ada');
  });
  afterAll(async () => admin.context.close());

  it('an admin disables a user on the Access page and that user’s open session is refused at once', async () => {
    const dora = await signedIn('dora');
    try {
      expect(await signedInAs(dora.page)).toBe('dora');

      await nav(admin.page, 'Access');
      const row = userRow(admin.page, 'dora');
      await row.getByText('active').waitFor();
      await row.getByRole('button', { name: 'Disable' }).click();
      await confirmDialog(admin.page, 'Disable');
      await row.getByText('disabled').waitFor();
      await row.getByRole('button', { name: 'Enable' }).waitFor();
      await shots.take(admin.page, 'account-01-user-disabled');
      const stored = await relay.pipeline.store.prisma.user.findFirstOrThrow({ where: { username: 'dora' } });
      expect(stored.disabledAt).not.toBeNull();

      // Dora's session is over: the API no longer knows her, and the dashboard sends her to the sign-in.
      expect(await signedInAs(dora.page)).toBeNull();
      await dora.page.reload();
      await dora.page.waitForURL((u) => u.pathname.startsWith('/app/login'));
      // Nor can she sign in again.
      expect(await loginStatus('dora', PASSWORD)).toBe(401);
      await dora.page.getByRole('textbox', { name: 'Username' }).fill('dora');
      await dora.page.locator('input[type=password]').fill(PASSWORD);
      await dora.page.getByRole('button', { name: 'Sign in' }).click();
      await dora.page.getByRole('alert').waitFor();
      expect(new URL(dora.page.url()).pathname).toBe('/app/login');

      // Re-enabled, she signs in again.
      await row.getByRole('button', { name: 'Enable' }).click();
      await confirmDialog(admin.page, 'Enable');
      await row.getByText('active').waitFor();
      expect(await loginStatus('dora', PASSWORD)).toBe(200);
    } finally {
      await dora.context.close();
    }
  });

  it('a user changes their password on the Account page, then signs in with the new one', async () => {
    const other = await signedIn('pete');
    const pete = await signedIn('pete');
    try {
      await nav(pete.page, 'Account');
      const form = pete.page.getByRole('form', { name: 'Change password' });
      await form.getByLabel(/^Current password/).fill(PASSWORD);
      await form.getByLabel(/^New password/).fill(NEW_PASSWORD);
      await form.getByLabel(/^Confirm new password/).fill(NEW_PASSWORD);
      await shots.take(pete.page, 'account-02-change-password');
      await form.getByRole('button', { name: 'Change password' }).click();
      await pete.page.getByText('Password changed').waitFor();
      await shots.take(pete.page, 'account-03-password-changed');

      // This session goes on; the other one ended with the change.
      expect(await signedInAs(pete.page)).toBe('pete');
      expect(await signedInAs(other.page)).toBeNull();
      await pete.page.reload();
      await pete.page.getByRole('heading', { name: 'Account' }).waitFor();
      expect(new URL(pete.page.url()).pathname).toBe('/app/account');
    } finally {
      await other.context.close();
      await pete.context.close();
    }

    expect(await loginStatus('pete', PASSWORD)).toBe(401);
    const again = await signedIn('pete', NEW_PASSWORD);
    try {
      expect(await signedInAs(again.page)).toBe('pete');
    } finally {
      await again.context.close();
    }
  });

  it('a wrong current password is shown on the form and changes nothing', async () => {
    const rita = await signedIn('rita');
    try {
      await nav(rita.page, 'Account');
      const form = rita.page.getByRole('form', { name: 'Change password' });
      await form.getByLabel(/^Current password/).fill('not-the-password');
      await form.getByLabel(/^New password/).fill(NEW_PASSWORD);
      await form.getByLabel(/^Confirm new password/).fill(NEW_PASSWORD);
      await form.getByRole('button', { name: 'Change password' }).click();
      // Under the field it concerns.
      await form.getByText('The current password is wrong.').waitFor();
      await shots.take(rita.page, 'account-07-wrong-current-password');
      expect(await loginStatus('rita', PASSWORD)).toBe(200);
    } finally {
      await rita.context.close();
    }
  });

  it('an admin issues a set-password link; the user sets a password on that page and signs in with it', async () => {
    await nav(admin.page, 'Access');
    await userRow(admin.page, 'rita').getByRole('button', { name: 'Reset password' }).click();
    const dialog = admin.page.getByRole('dialog', { name: 'Set-password link for rita' });
    await dialog.getByText('This is the only time the code is shown.').waitFor();
    const link = new URL((await dialog.locator('code').first().textContent()) ?? '');
    const code = (await dialog.locator('code').nth(1).textContent()) ?? '';
    expect(link.pathname).toBe('/app/set-password');
    expect(link.searchParams.get('code')).toBe(code);
    await shots.take(admin.page, 'account-04-reset-link');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await admin.page.getByText(code).count()).toBe(0);

    // Rita, with no session, opens the link (on this test's host) and sets her password.
    const context = await newContext(relay.browser);
    try {
      const page = await context.newPage();
      await page.goto(`${relay.url}${link.pathname}${link.search}`);
      const form = page.getByRole('form', { name: 'Set password' });
      await form.getByLabel(/^New password/).fill(NEW_PASSWORD);
      await form.getByLabel(/^Confirm new password/).fill(NEW_PASSWORD);
      await shots.take(page, 'account-05-set-password');
      await form.getByRole('button', { name: 'Set password' }).click();
      await page.waitForURL((u) => u.pathname === '/app/login');
      await page.getByText('Your password is set: sign in with it.').waitFor();
      await shots.take(page, 'account-06-password-set');
      await signIn(page, relay.url, 'rita', NEW_PASSWORD);
      expect(await signedInAs(page)).toBe('rita');

      // The code worked once.
      const reused = await relay.pipeline.http
        .post('/api/auth/password-reset')
        .send({ code, new_password: 'Another-Horse-Battery-7' });
      expect(reused.status).toBe(400);
    } finally {
      await context.close();
    }
    expect(await loginStatus('rita', PASSWORD)).toBe(401);
  });
});
