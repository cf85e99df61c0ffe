import type { BrowserContext, Page } from 'playwright-core';
import { readFile } from 'node:fs/promises';
import { seedUser, userCredential } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { nav, newContext, signIn, startRelaySession, type RelaySession } from './relay-session';

// An admin's management flows in a real browser against the real api, worker, Postgres and Redis:
// rules and hooks, API keys, custom domains, and an operator creating an organization.
jest.setTimeout(120_000);

let relay: RelaySession;
const shots = screenshotter();
const PASSWORD = 'browser-password-1';
const OPERATOR_TOKEN = 'browser-operator-bootstrap-token-admin-flows';

beforeAll(async () => {
  // Domains need the canonical ingest host; no DNS server is asked here (nothing is verified).
  relay = await startRelaySession({ PLATFORM_ADMIN_TOKEN: OPERATOR_TOKEN, INGEST_CANONICAL_HOST: 'relay.test' });
  await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  await seedUser(relay.pipeline, { username: 'vic', role: 'viewer', password: PASSWORD });
  console.log(`dashboard screenshots: ${shots.dir}`);
}, 240_000);

afterAll(async () => relay?.close());

describe('an admin', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await newContext(relay.browser);
    page = await context.newPage();
    await signIn(page, relay.url, 'ada', PASSWORD);
  });
  afterAll(async () => context.close());

  it('creates a rule and a hook on it from the Rules pages, and sees both listed', async () => {
    await nav(page, 'Rules');
    await page.getByRole('button', { name: 'New rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'New rule' });
    await dialog.getByRole('textbox', { name: 'Source' }).fill('billing');
    await dialog.getByRole('textbox', { name: 'Target URL' }).fill('https://billing.example.com/webhooks');
    await dialog.getByRole('textbox', { name: 'Description' }).fill('Invoices from the billing system');
    await shots.take(page, 'admin-01-rules-new-rule');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /billing/ });
    await row.getByText('https://billing.example.com/webhooks').waitFor();
    await shots.take(page, 'admin-02-rules-list');

    await page.getByRole('link', { name: 'billing' }).click();
    await page.getByRole('heading', { name: 'billing', level: 2 }).waitFor();
    const form = page.getByRole('form', { name: 'New hook' });
    await form.getByRole('textbox', { name: 'Hook target URL' }).fill('https://alerts.example.com/failed');
    await form.getByRole('combobox', { name: 'Trigger' }).selectOption('provider_failed');
    await form.getByRole('button', { name: 'Add hook' }).click();
    await page.getByRole('cell', { name: 'https://alerts.example.com/failed' }).waitFor();
    await shots.take(page, 'admin-03-rule-detail-hooks');

    const rule = await relay.pipeline.store.prisma.rule.findFirstOrThrow({ where: { source: 'billing' } });
    expect(rule).toMatchObject({
      targetUrl: 'https://billing.example.com/webhooks',
      description: 'Invoices from the billing system',
      active: true,
    });
    const hooks = await relay.pipeline.store.prisma.hook.findMany({ where: { ruleId: rule.id } });
    expect(hooks).toMatchObject([{ targetUrl: 'https://alerts.example.com/failed', trigger: 'provider_failed' }]);
    expect(new URL(page.url()).pathname).toBe(`/app/rules/${rule.id}`);
  });

  it('creates an API key on the Access page and calls the API with the token shown once', async () => {
    await nav(page, 'Access');
    await page.getByRole('tab', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'New API key' }).click();
    const dialog = page.getByRole('dialog', { name: 'New API key' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('reporting');
    await dialog.getByRole('checkbox', { name: 'events:read' }).check();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText('This is the only time the token is shown.').waitFor();
    const token = (await dialog.locator('code').textContent()) ?? '';
    await shots.take(page, 'admin-04-access-api-key-created');
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('cell', { name: 'reporting' }).waitFor();
    await shots.take(page, 'admin-05-access-api-keys');

    // What a client does with it (curl -H "Authorization: Bearer …" /events).
    const events = await fetch(`${relay.url}/events`, { headers: { authorization: `Bearer ${token}` } });
    expect(events.status).toBe(200);
    expect(await events.json()).toHaveProperty('events');
    // Its scopes hold: reading events is not sending webhooks.
    const send = await fetch(`${relay.url}/api/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'billing', body: {} }),
    });
    expect(send.status).toBe(403);
    // The list never shows the secret again.
    expect(await page.getByText(token).count()).toBe(0);
  });

  it('adds a domain on the Domains page and sees the CNAME and TXT records to create', async () => {
    await nav(page, 'Domains');
    const form = page.getByRole('form', { name: 'Add domain' });
    await form.getByRole('textbox', { name: 'Domain' }).fill('hooks.acme.example');
    await form.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: 'hooks.acme.example' }).waitFor();

    const domain = await relay.pipeline.store.prisma.customDomain.findFirstOrThrow({
      where: { domain: 'hooks.acme.example' },
    });
    const cname = page.getByRole('row', { name: /^CNAME/ });
    const txt = page.getByRole('row', { name: /^TXT/ });
    await cname.getByText('hooks.acme.example', { exact: true }).waitFor();
    await cname.getByText('relay.test', { exact: true }).waitFor();
    await txt.getByText('_relay-verification.hooks.acme.example', { exact: true }).waitFor();
    await txt.getByText(domain.verificationToken).waitFor();
    await shots.take(page, 'admin-06-domains');
  });

  it('downloads the configuration from Settings as the file relay apply takes, and sees the last apply', async () => {
    await nav(page, 'Settings');
    await page.getByText('No configuration applied yet.').waitFor();
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export configuration' }).click();
    const file = await downloading;
    expect(file.suggestedFilename()).toBe('relay.json');
    const exported = JSON.parse(await readFile(await file.path(), 'utf8'));
    const billing = exported.rules.find((rule: { source: string }) => rule.source === 'billing');
    expect(billing).toMatchObject({ target_url: 'https://billing.example.com/webhooks' });

    // The downloaded file applied as it is plans nothing; with one change, the card shows that apply.
    const admin = (await userCredential(relay.pipeline, 'admin')).authorization;
    const changed = {
      ...exported,
      rules: exported.rules.map((rule: { source: string }) =>
        rule.source === 'billing' ? { ...rule, description: 'Invoices, from git' } : rule,
      ),
    };
    const same = await relay.pipeline.http.post('/api/config/apply').set('authorization', admin).send(exported);
    expect(same.body).toMatchObject({ applied: false, changes: [] });
    await relay.pipeline.http.post('/api/config/apply').set('authorization', admin).send(changed).expect(200);
    await page.reload();
    await page.getByLabel('last apply').getByText('0 created, 1 changed, 0 deleted', { exact: false }).waitFor();
    await shots.take(page, 'settings-configuration-as-code');
  });
});

describe('a viewer', () => {
  it('sees what the admin set up, read-only, and no organization management', async () => {
    const context = await newContext(relay.browser);
    try {
      const page = await context.newPage();
      await signIn(page, relay.url, 'vic', PASSWORD);
      const links = page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link');
      expect(await links.allTextContents()).not.toContain('Send');

      await nav(page, 'Rules');
      await page.getByRole('cell', { name: 'https://billing.example.com/webhooks' }).waitFor();
      expect(await page.getByRole('button', { name: /New rule|Edit|Deactivate|Delete/ }).count()).toBe(0);
      await shots.take(page, 'viewer-01-rules');

      await nav(page, 'Domains');
      await page.getByText('Custom ingest domains are managed by the organization').waitFor();
      expect(await page.getByRole('form', { name: 'Add domain' }).count()).toBe(0);
      await shots.take(page, 'viewer-02-domains');

      await nav(page, 'Access');
      await page.getByRole('tab', { name: 'Personal tokens' }).waitFor();
      expect(await page.getByRole('tab').allTextContents()).toEqual(['Personal tokens', 'Audit log']);
      await shots.take(page, 'viewer-03-access');
    } finally {
      await context.close();
    }
  });
});

describe('a platform operator', () => {
  it('creates an organization whose first admin then signs in and lands in it', async () => {
    const created = await relay.pipeline.http
      .post('/api/platform/bootstrap/operator')
      .set('authorization', `Bearer ${OPERATOR_TOKEN}`)
      .send({ username: 'root' })
      .expect(201);
    const operator = await newContext(relay.browser);
    try {
      const page = await operator.newPage();
      await signIn(page, relay.url, 'root', created.body.password);
      await page.getByRole('button', { name: 'New organization' }).click();
      const dialog = page.getByRole('dialog', { name: 'New organization' });
      const fields: [string, string][] = [
        ['Organization name', 'Globex'],
        ['Slug', 'globex'],
        ['Subscriber name', 'Globex Corporation'],
        ['Billing contact name', 'Hank Scorpio'],
        ['Billing contact e-mail', 'billing@globex.example'],
        ['Admin username', 'globex-admin'],
        ['Admin e-mail', 'admin@globex.example'],
      ];
      for (const [label, value] of fields) await dialog.getByRole('textbox', { name: label }).fill(value);
      await dialog.locator('input[type=password]').fill('Correct-Horse-Battery-9');
      await shots.take(page, 'admin-07-platform-new-organization');
      await dialog.getByRole('button', { name: 'Create' }).click();
      await dialog.getByText('Globex created').waitFor();
      await dialog
        .getByText(/globex\.relay\.test/)
        .first()
        .waitFor();
      await shots.take(page, 'admin-08-platform-organization-created');
      await dialog.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('link', { name: 'Globex' }).click();
      await page.getByRole('heading', { name: 'Globex', level: 2 }).waitFor();
      await page.getByRole('form', { name: 'Subscription' }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/app\/platform\/organizations\/[0-9a-f-]+$/);
      await shots.take(page, 'admin-09-platform-organization');
    } finally {
      await operator.close();
    }

    const member = await newContext(relay.browser);
    try {
      const page = await member.newPage();
      await signIn(page, relay.url, 'globex-admin', 'Correct-Horse-Battery-9');
      await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/events');
      await page.getByText('Globex', { exact: true }).waitFor();
      const me = await page.request.get(`${relay.url}/api/auth/me`);
      expect(await me.json()).toMatchObject({ organization: { name: 'Globex' }, role: 'admin' });
      await shots.take(page, 'admin-10-new-organization-admin');
    } finally {
      await member.close();
    }
  });
});
