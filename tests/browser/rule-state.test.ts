import type { BrowserContext, Page } from 'playwright-core';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { seedUser, userCredential } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { newContext, signIn, startRelaySession, type RelaySession } from './relay-session';

// Rules show their state (issue 31 item 2) in a real browser against the real api, worker, Postgres and Redis: health
// in the list (an unhealthy rule is never a green "active"), who signs, a traffic chart per rule with its counts, a
// rule page edited in place with its recent events, and resume with the count of paused events.
jest.setTimeout(120_000);

let relay: RelaySession;
let shopTarget: TargetServer;
let legacyTarget: TargetServer;
let shopId: string;
let legacyId: string;
const shots = screenshotter();
const PASSWORD = 'browser-password-1';

/** Ingests a webhook through `source` and returns the event's id. */
async function send(source: string, n: number): Promise<string> {
  const res = await fetch(`${relay.url}/${source}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ n }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

beforeAll(async () => {
  shopTarget = await startTargetServer();
  legacyTarget = await startTargetServer();
  // The api knows the install signs with a default secret: a rule without its own says "default secret".
  relay = await startRelaySession({ DEFAULT_SIGNING_SECRET: 'the-install-default-secret' });
  await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  const { authorization } = await userCredential(relay.pipeline, 'admin');
  const create = (body: object) =>
    relay.pipeline.http.post('/rules').set('authorization', authorization).send(body).expect(201);
  shopId = (await create({ name: 'shop', source: 'shop', target_url: `${shopTarget.url}/in` })).body.id;
  legacyId = (
    await create({
      name: 'legacy',
      source: 'legacy',
      target_url: `${legacyTarget.url}/in`,
      signing_secret: 'legacy-own-secret-16',
    })
  ).body.id;
  // shop: three delivered. legacy: its target is gone (410), so the rule turns unhealthy at once; the next two wait
  // as paused.
  for (const n of [1, 2, 3]) await relay.pipeline.waitForStatus(await send('shop', n), 'delivered', 20_000);
  legacyTarget.replyWith(410);
  await relay.pipeline.waitForStatus(await send('legacy', 1), 'failed', 20_000);
  for (const n of [2, 3]) await relay.pipeline.waitForStatus(await send('legacy', n), 'paused', 20_000);
  console.log(`dashboard screenshots: ${shots.dir}`);
}, 240_000);

afterAll(async () => {
  await relay?.close();
  await shopTarget?.close();
  await legacyTarget?.close();
});

describe("an admin reading the rules' state", () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await newContext(relay.browser);
    page = await context.newPage();
    await signIn(page, relay.url, 'ada', PASSWORD);
  });
  afterAll(async () => context.close());

  const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });

  it('lists health, who signs, and a traffic chart with counts per rule', async () => {
    await page.goto(`${relay.url}/app/rules`);
    const legacy = row('legacy');
    const shop = row('shop');
    // An unhealthy rule is a red "unhealthy" with its reason, not a green "active".
    await legacy.getByText('unhealthy', { exact: true }).waitFor();
    await legacy.getByText(/target answered 410 Gone/).waitFor();
    expect(await legacy.getByText('active', { exact: true }).count()).toBe(0);
    await shop.getByText('active', { exact: true }).waitFor();
    // Who signs: the install's default secret for shop, its own for legacy.
    await shop.getByText('default secret', { exact: true }).waitFor();
    await legacy.getByText('own secret', { exact: true }).waitFor();
    // One traffic chart per rule, named with its counts, and the counts beside it.
    await shop.getByRole('img', { name: 'Traffic: 3 delivered, 0 failed, 3 events' }).waitFor();
    await shop.getByText('3 delivered', { exact: true }).waitFor();
    await legacy.getByRole('img', { name: 'Traffic: 0 delivered, 1 failed, 3 events' }).waitFor();
    await legacy.getByText('1 failed', { exact: true }).waitFor();
    // Bars are drawn: shop's three events fall in one or two hourly buckets.
    expect(await shop.locator('svg[role=img] g[data-bucket] rect').count()).toBeGreaterThanOrEqual(3);
    // The list fits the 1280 px window: long URLs wrap rather than widen the page.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    await shots.take(page, 'rules-01-list-state');
  });

  it("shows a rule's traffic and recent events, each linking to the event and to the filtered list", async () => {
    await page.goto(`${relay.url}/app/rules/${shopId}`);
    const traffic = page.getByRole('region', { name: 'Traffic' });
    await traffic.getByRole('img', { name: 'Traffic: 3 delivered, 0 failed, 3 events' }).waitFor();
    const recent = page.getByRole('region', { name: 'Recent events' });
    await recent.getByRole('link', { name: 'All 3 events of this rule' }).waitFor();
    expect(await recent.getByRole('row').count()).toBe(4);
    await shots.take(page, 'rules-02-rule-page');
    const newest = await relay.pipeline.store.prisma.event.findFirstOrThrow({
      where: { ruleId: shopId },
      orderBy: { createdAt: 'desc' },
    });
    await recent.getByRole('link', { name: `Event ${newest.id}` }).click();
    await page.waitForURL(`${relay.url}/app/events/${newest.id}`);
    await page.goBack();
    await recent.getByRole('link', { name: 'All 3 events of this rule' }).click();
    await page.waitForURL((u) => u.pathname === '/app/events' && u.searchParams.get('rule_id') === shopId);
    await page.getByText(`rule ${shopId.slice(0, 8)}`).waitFor();
    // Only shop's three events: legacy's are filtered out.
    await page.getByRole('link', { name: 'shop', exact: true }).first().waitFor();
    expect(await page.getByRole('link', { name: 'legacy', exact: true }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'shop', exact: true }).count()).toBe(3);
  });

  it('edits a rule in place: a refused field shows under it, then Save stores the change', async () => {
    await page.goto(`${relay.url}/app/rules/${shopId}`);
    await page.getByRole('button', { name: 'Edit rule' }).click();
    const form = page.getByRole('form', { name: 'Edit rule shop' });
    await form.waitFor();
    // On the page, not in a dialog.
    expect(await page.getByRole('dialog').count()).toBe(0);
    await form.getByRole('textbox', { name: 'Description' }).fill('Orders from the shop');
    const target = form.getByRole('textbox', { name: 'Target URL' });
    await target.fill('not a url');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.locator('input[aria-invalid=true]').first().waitFor();
    expect(await target.getAttribute('aria-invalid')).toBe('true');
    await target.fill(`${shopTarget.url}/orders`);
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByText('Orders from the shop').waitFor();
    await page.getByText(`Target: ${shopTarget.url}/orders`).waitFor();
    const saved = await relay.pipeline.store.prisma.rule.findUniqueOrThrow({ where: { id: shopId } });
    expect(saved).toMatchObject({ description: 'Orders from the shop', targetUrl: `${shopTarget.url}/orders` });
  });

  it('offers resume with the count of paused events, and resuming delivers them', async () => {
    legacyTarget.replyWith(200);
    await page.goto(`${relay.url}/app/rules/${legacyId}`);
    const card = page.getByLabel('Endpoint health');
    await card.getByText('Waiting now: 2 paused events.').waitFor();
    // The page's badge beside the name is no green "active" either.
    expect(await page.getByText('active', { exact: true }).count()).toBe(0);
    await shots.take(page, 'rules-03-resume');
    await card.getByRole('button', { name: 'Resume and deliver 2 paused events' }).click();
    await page.getByText('Resumed: 2 paused events queued again.').waitFor();
    const paused = await relay.pipeline.store.prisma.event.findMany({ where: { ruleId: legacyId, status: 'paused' } });
    expect(paused).toEqual([]);
    await legacyTarget.waitForRequests(3, 20_000);
  });
});
