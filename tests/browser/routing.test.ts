import type { BrowserContext, Page } from 'playwright-core';
import { startTargetServer, waitFor, type TargetServer } from '@relay/test-support';
import { seedUser, userCredential } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { newContext, signIn, startRelaySession, type RelaySession } from './relay-session';

// Routing in the dashboard (issue 29 item 7) in a real browser against the real api, worker, Postgres and Redis:
// a destination's filter tried as typed on the rule's stored webhooks, saved; the event page's deliveries; one
// delivery retried alone.
jest.setTimeout(120_000);

let relay: RelaySession;
let primary: TargetServer;
let ci: TargetServer;
let ruleId: string;
const shots = screenshotter();
const PASSWORD = 'browser-password-1';
const FILTER = { body: { ref: 'refs/heads/main' } };
/**
 * Scrolls the element `selector` finds to the middle of the viewport (of the dialog too, when it is in one), where the
 * documentation's viewport-sized screenshots show it. A string: this project's TypeScript has no DOM types.
 */
const center = (page: Page, selector: string) =>
  page.evaluate(`document.querySelector(${JSON.stringify(selector)}).scrollIntoView({ block: 'center' })`);

/** Ingests a push to `ref` through the rule's source and returns the event's id. */
async function push(ref: string): Promise<string> {
  const res = await fetch(`${relay.url}/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
    body: JSON.stringify({ ref, commits: [] }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}

const deliveryOf = (eventId: string, status: string) =>
  waitFor(
    async () => {
      const delivery = await relay.pipeline.store.prisma.delivery.findFirst({ where: { eventId } });
      return delivery?.status === status ? delivery : undefined;
    },
    20_000,
    `the delivery of ${eventId} to be ${status}`,
  );

beforeAll(async () => {
  primary = await startTargetServer();
  ci = await startTargetServer();
  relay = await startRelaySession();
  await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  await seedUser(relay.pipeline, { username: 'vic', role: 'viewer', password: PASSWORD });
  const { authorization } = await userCredential(relay.pipeline, 'admin');
  const rule = await relay.pipeline.http
    .post('/rules')
    .set('authorization', authorization)
    .send({ source: 'github', target_url: `${primary.url}/main` })
    .expect(201);
  ruleId = rule.body.id;
  // The webhooks the dry run tries the filter on: three pushes to main among five.
  const ids = [];
  for (const ref of ['refs/heads/main', 'refs/heads/dev', 'refs/heads/main', 'refs/heads/dev', 'refs/heads/main'])
    ids.push(await push(ref));
  for (const id of ids) await relay.pipeline.waitForStatus(id, 'delivered');
  console.log(`dashboard screenshots: ${shots.dir}`);
}, 240_000);

afterAll(async () => {
  await relay?.close();
  await primary?.close();
  await ci?.close();
});

describe('an admin routing a rule', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await newContext(relay.browser);
    page = await context.newPage();
    await signIn(page, relay.url, 'ada', PASSWORD);
  });
  afterAll(async () => context.close());

  it("adds a destination whose filter, as it is typed, says how many of the rule's webhooks it would match", async () => {
    await page.goto(`${relay.url}/app/rules/${ruleId}`);
    await page.getByText("No destinations: webhooks go to the rule's target only.").waitFor();
    await page.getByRole('button', { name: 'Add destination' }).click();
    const dialog = page.getByRole('dialog', { name: 'New destination of github' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('ci');
    await dialog.getByRole('textbox', { name: 'Target URL' }).fill(`${ci.url}/ci`);
    await dialog.getByRole('button', { name: /^Filter/ }).click();
    const editor = dialog.getByRole('textbox', { name: 'Filter JSON' });
    // Typed key by key: the text is not JSON until the last brace, and the dry run waits for a pause.
    await editor.pressSequentially(JSON.stringify(FILTER));
    await dialog.getByText('Would have matched 3 of the last 5 webhooks.').waitFor();
    await editor.fill('{"body": {"ref": {"$startsWith": "refs/heads/"}}}');
    await dialog.getByText('Would have matched 5 of the last 5 webhooks.').waitFor();
    await editor.fill(JSON.stringify(FILTER, null, 2));
    const count = dialog.getByText('Would have matched 3 of the last 5 webhooks.');
    await count.waitFor();
    await center(page, '[aria-label="Dry run"]');
    await shots.take(page, 'routing-01-destination-filter');
    await dialog.getByRole('button', { name: /^Delivery policy/ }).click();
    await dialog.getByRole('textbox', { name: 'Max attempts' }).fill('2');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.getByTestId('destinations').getByRole('row', { name: /^ci\s/ });
    await row.getByText(JSON.stringify(FILTER)).waitFor();
    await row.getByText('healthy', { exact: true }).waitFor();

    const saved = await relay.pipeline.store.prisma.destination.findFirstOrThrow({ where: { ruleId } });
    expect(saved).toMatchObject({
      name: 'ci',
      targetUrl: `${ci.url}/ci`,
      filter: FILTER,
      active: true,
      deliveryPolicy: { max_attempts: 2 },
    });
  });

  it('shows an event with its failed delivery in the list, on the rule and on the event page, and retries it alone', async () => {
    ci.replyWith(500);
    const id = await push('refs/heads/main');
    await relay.pipeline.waitForStatus(id, 'delivered');
    await deliveryOf(id, 'failed');

    await page.goto(`${relay.url}/app/events`);
    const listed = page.getByTestId('event-row').filter({ has: page.locator(`a[href$="/events/${id}"]`) });
    await listed.getByText('1 · 1 failed').waitFor();

    await page.goto(`${relay.url}/app/rules/${ruleId}`);
    const row = page.getByTestId('destinations').getByRole('row', { name: /^ci\s/ });
    await row.getByRole('link', { name: '1 · 1 failed' }).waitFor();
    await center(page, 'section[aria-label="Destinations"]');
    await shots.take(page, 'routing-02-rule-destinations');

    await page.goto(`${relay.url}/app/events/${id}`);
    const delivery = page.getByTestId('deliveries').getByTestId('delivery');
    await delivery.getByText('failed', { exact: true }).waitFor();
    await delivery.getByText(`${ci.url}/ci`).waitFor();
    await delivery.getByText('ci', { exact: true }).waitFor();
    await delivery.getByTestId('delivery-attempts').getByText('500', { exact: true }).first().waitFor();
    expect(await delivery.getByTestId('delivery-attempts').getByText('500', { exact: true }).count()).toBe(2);
    // The primary target's timeline shows its own attempt only.
    await page.getByTestId('attempts').getByText('200', { exact: true }).waitFor();
    expect(await page.getByTestId('attempts').getByText('500', { exact: true }).count()).toBe(0);
    await page.getByTestId('deliveries').scrollIntoViewIfNeeded();
    await shots.take(page, 'routing-03-event-deliveries');

    ci.replyWith(200);
    await delivery.getByRole('button', { name: 'Retry' }).click();
    await deliveryOf(id, 'delivered');
    await delivery.getByText('delivered', { exact: true }).waitFor({ timeout: 15_000 });
    await delivery.getByTestId('delivery-attempts').getByText('200', { exact: true }).waitFor();
    // The primary was not sent again: one attempt, and the event as it was.
    const attempts = await relay.pipeline.attemptsOf(id);
    expect(attempts.filter((a) => a.destinationId === null)).toHaveLength(1);
    expect(attempts.filter((a) => a.destinationId !== null).map((a) => a.responseStatus)).toEqual([500, 500, 200]);
    expect((await relay.pipeline.eventById(id))?.status).toBe('delivered');
  });
});

describe('a viewer', () => {
  it('sees the destinations and the deliveries with no button to change them', async () => {
    const context = await newContext(relay.browser);
    try {
      const page = await context.newPage();
      await signIn(page, relay.url, 'vic', PASSWORD);
      await page.goto(`${relay.url}/app/rules/${ruleId}`);
      const section = page.getByRole('region', { name: 'Destinations' });
      await section.getByRole('row', { name: /^ci\s/ }).waitFor();
      expect(await section.getByRole('button').count()).toBe(0);
      const event = await relay.pipeline.store.prisma.delivery.findFirstOrThrow({ select: { eventId: true } });
      await page.goto(`${relay.url}/app/events/${event.eventId}`);
      await page.getByTestId('deliveries').getByTestId('delivery').waitFor();
      expect(await page.getByRole('button', { name: /Retry|Acknowledge|Delete/ }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
