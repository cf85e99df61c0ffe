import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshotter } from './browser-harness';
import { newContext, signIn, startRelaySession, type RelaySession } from './relay-session';

// A platform operator's job in a real browser against the real api, Postgres and Redis: an organization's usage
// against its quota, its export as a downloaded file, its deletion behind a typed slug (a refusal explained in
// words first), the queue view, and the platform audit log's filters.
jest.setTimeout(120_000);

let relay: RelaySession;
let context: BrowserContext;
let page: Page;
let operatorCookie: string;
const shots = screenshotter();
const TOKEN = 'browser-operator-bootstrap-token-platform-console';
const CANONICAL = 'relay.test';

/** The operator's session cookie for setup calls made outside the browser (same origin, as the browser's). */
const asOperator = <T extends { set(name: string, value: string): T }>(req: T): T =>
  req.set('cookie', operatorCookie).set('sec-fetch-site', 'same-origin');

async function createOrganization(slug: string, name: string): Promise<string> {
  const created = await asOperator(relay.pipeline.http.post('/api/platform/organizations'))
    .send({
      name,
      slug,
      username: `${slug}-admin`,
      password: 'Correct-Horse-Battery-9',
      email: `admin@${slug}.example`,
      subscriber_name: name,
      billing_contact_name: 'Bea Bills',
      billing_contact_email: `billing@${slug}.example`,
    })
    .expect(201);
  return created.body.organization.id as string;
}

const ingestAt = (host: string, n: number) =>
  relay.pipeline.http
    .post('/orders')
    .set('host', host)
    .set('content-type', 'application/json')
    .send(JSON.stringify({ n }))
    .expect(202);

let initech: string;
let umbrella: string;

beforeAll(async () => {
  // INGEST_HOST_CACHE_MS=0: a quota set just before ingest is the one counted against.
  relay = await startRelaySession({
    PLATFORM_ADMIN_TOKEN: TOKEN,
    INGEST_CANONICAL_HOST: CANONICAL,
    INGEST_HOST_CACHE_MS: '0',
  });
  const bootstrapped = await relay.pipeline.http
    .post('/api/platform/bootstrap/operator')
    .set('authorization', `Bearer ${TOKEN}`)
    .send({ username: 'root' })
    .expect(201);
  const password = bootstrapped.body.password as string;
  const login = await relay.pipeline.http
    .post('/api/auth/login')
    .set('sec-fetch-site', 'same-origin')
    .send({ username: 'root', password })
    .expect(200);
  operatorCookie = ([] as string[])
    .concat(login.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('relay_session='))!
    .split(';')[0]!;

  initech = await createOrganization('initech', 'Initech');
  await asOperator(relay.pipeline.http.patch(`/api/platform/organizations/${initech}/subscription`))
    .send({ monthly_event_limit: 10, ingest_rate_limit: 500 })
    .expect(200);
  for (let n = 0; n < 3; n++) await ingestAt(`initech.${CANONICAL}`, n);
  // Umbrella's active custom domain makes the API refuse its deletion (409 organization_has_domains).
  umbrella = await createOrganization('umbrella', 'Umbrella');
  await relay.pipeline.store.prisma.customDomain.create({
    data: { organizationId: umbrella, domain: 'hooks.umbrella.test', verificationToken: 't', status: 'active' },
  });

  context = await newContext(relay.browser);
  page = await context.newPage();
  await signIn(page, relay.url, 'root', password);
  console.log(`dashboard screenshots: ${shots.dir}`);
}, 240_000);

afterAll(async () => {
  await context?.close();
  await relay?.close();
});

const openOrganization = async (name: string) => {
  await page.goto(`${relay.url}/app/platform`);
  await page.getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { name, level: 2 }).waitFor();
};

describe('the platform console', () => {
  it("shows an organization's usage against its quota with a bar, and the limits in effect", async () => {
    await openOrganization('Initech');
    await page.getByTestId('usage-summary').getByText('3 of 10 events (30%)').waitFor();
    const bar = page.getByRole('progressbar', { name: 'Events this period against the monthly quota' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('30');
    const limits = page.getByRole('table', { name: 'Limits' });
    expect(await limits.getByRole('row', { name: /Ingest rate limit/ }).textContent()).toContain('500 per minute');
    expect(await limits.getByRole('row', { name: /API rate limit/ }).textContent()).toContain('install-wide');
    await shots.take(page, 'platform-01-organization');
  });

  it("downloads the organization's export as an NDJSON file of its events", async () => {
    await openOrganization('Initech');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export events' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.ndjson$/);
    const file = await download.path();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).body)).toEqual(['{"n":0}', '{"n":1}', '{"n":2}']);
  });

  it('opens the queue view from the console (an operator session is let in)', async () => {
    await page.goto(`${relay.url}/app/platform`);
    const link = page.getByRole('link', { name: 'Queue view' });
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toBe('/admin/queues');
    const answer = await page.request.get(`${relay.url}${href}`);
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toMatch(/text\/html/);
  });

  it('deletes only once the slug is typed, and explains a refusal by its reason first', async () => {
    await openOrganization('Umbrella');
    await page.getByRole('button', { name: 'Delete organization' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Umbrella' });
    const confirm = dialog.getByRole('button', { name: 'Delete', exact: true });
    const typed = dialog.getByRole('textbox', { name: 'Type the slug umbrella to confirm' });
    await typed.fill('Umbrella');
    expect(await confirm.isDisabled()).toBe(true);
    await typed.fill('umbrella');
    await confirm.click();
    const alert = dialog.getByRole('alert');
    await alert.getByText('Not deleted: it still has an active custom domain').waitFor();
    expect(await alert.textContent()).toContain('Active: hooks.umbrella.test');
    expect(await alert.textContent()).not.toContain('{');
    await shots.take(page, 'platform-02-delete-refused');
    expect(await relay.pipeline.store.prisma.organization.count({ where: { id: umbrella } })).toBe(1);

    // Once the domain is gone the same confirmation deletes it, and the console lists it no more.
    await relay.pipeline.store.prisma.customDomain.deleteMany({ where: { organizationId: umbrella } });
    await confirm.click();
    await page.waitForURL((u) => u.pathname === '/app/platform');
    await page.getByRole('link', { name: 'Initech', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'Umbrella', exact: true }).count()).toBe(0);
    expect(await relay.pipeline.store.prisma.organization.count({ where: { id: umbrella } })).toBe(0);
  });

  it('filters the platform audit log by action and actor', async () => {
    await page.goto(`${relay.url}/app/platform`);
    await page.getByRole('tab', { name: 'Audit log' }).click();
    await page.getByTestId('audit-table').getByText('organization.deleted').waitFor();
    const filters = page.getByRole('form', { name: 'Audit filters' });
    await filters.getByLabel('Action').fill('organization.exported');
    await filters.getByRole('textbox', { name: 'Actor e-mail' }).fill('root@operator.invalid');
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByTestId('audit-total').getByText('1 entry matches').waitFor();
    const rows = page.getByTestId('audit-table').locator('tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(initech);
    await shots.take(page, 'platform-03-audit-filtered');

    await filters.getByRole('textbox', { name: 'Actor e-mail' }).fill('nobody@operator.invalid');
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No entries match these filters.').waitFor();
  });
});
