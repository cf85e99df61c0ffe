import type { BrowserContext, Page } from 'playwright-core';
import { startTargetServer, type TargetServer } from '@relay/test-support';
import { seedUser, userCredential } from '../e2e/harness';
import { screenshotter } from './browser-harness';
import { newContext, signIn, startRelaySession, type RelaySession } from './relay-session';

// Transforms and pacing in the dashboard (issue 30 items 4 and 6) in a real browser against the real api, worker,
// Postgres and Redis: a transform typed in the (lazily loaded) CodeMirror editor, tested on a stored webhook in the
// sandbox — its error with the line, then its output beside the input — saved; a rate limit and a concurrency set
// and shown on the rule page.
jest.setTimeout(120_000);

let relay: RelaySession;
let target: TargetServer;
let ruleId: string;
const shots = screenshotter();
const PASSWORD = 'browser-password-1';
const BROKEN = `addHandler('transform', (request) => {
  return request.body.missing.name;
});`;
const CHAT = `addHandler('transform', (request, context) => {
  console.log('push by', request.body.pusher.name);
  request.body = { text: \`\${request.body.pusher.name} pushed to \${request.body.repository.full_name}\` };
  request.headers['x-kind'] = 'chat';
  return request;
});`;
/** Scrolls the element `selector` finds to the middle of the viewport (a string: no DOM types here). */
const center = (page: Page, selector: string) =>
  page.evaluate(`document.querySelector(${JSON.stringify(selector)}).scrollIntoView({ block: 'center' })`);

beforeAll(async () => {
  target = await startTargetServer();
  relay = await startRelaySession();
  await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
  const { authorization } = await userCredential(relay.pipeline, 'admin');
  const rule = await relay.pipeline.http
    .post('/rules')
    .set('authorization', authorization)
    .send({ source: 'github', target_url: `${target.url}/chat` })
    .expect(201);
  ruleId = rule.body.id;
  const res = await fetch(`${relay.url}/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
    body: JSON.stringify({ pusher: { name: 'ada' }, repository: { full_name: 'acme/app' }, ref: 'refs/heads/main' }),
  });
  expect(res.status).toBe(202);
  await relay.pipeline.waitForStatus(((await res.json()) as { id: string }).id, 'delivered');
  console.log(`dashboard screenshots: ${shots.dir}`);
}, 240_000);

afterAll(async () => {
  await relay?.close();
  await target?.close();
});

describe('an admin on a rule page', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await newContext(relay.browser);
    page = await context.newPage();
    await signIn(page, relay.url, 'ada', PASSWORD);
  });
  afterAll(async () => context.close());

  it('types a transform, tests it on a stored webhook (error with its line, then the output), and saves it', async () => {
    await page.goto(`${relay.url}/app/rules/${ruleId}`);
    await page.getByRole('button', { name: 'Edit rule' }).click();
    const dialog = page.getByRole('form', { name: 'Edit rule github' }); // edited in place, on the page
    await dialog.getByRole('button', { name: /^Transform/ }).click();
    // CodeMirror's editable area, loaded on opening the section.
    const editor = dialog.getByRole('textbox', { name: 'Transform code' });
    await editor.fill(BROKEN);
    const run = dialog.getByRole('button', { name: 'Run test' });
    await run.click();
    await dialog
      .getByRole('alert')
      .getByText(/^Line 2: TypeError: /)
      .waitFor();

    await editor.fill(CHAT);
    // Highlighted as JavaScript: the editor marks up tokens, not one plain text node.
    expect(await dialog.locator('.cm-content span').count()).toBeGreaterThan(5);
    await run.click();
    const output = dialog.getByTestId('output-body');
    await output.getByText('ada pushed to acme/app').waitFor();
    expect(JSON.parse(await output.innerText())).toEqual({ text: 'ada pushed to acme/app' });
    expect(JSON.parse(await dialog.getByTestId('input-body').innerText())).toMatchObject({ pusher: { name: 'ada' } });
    await dialog.getByLabel('output').getByText('"x-kind": "chat"').waitFor();
    await dialog.getByLabel('Transform logs').getByText('push by ada').waitFor();
    await center(page, '.cm-editor');
    await shots.take(page, 'transform-01-editor-test');

    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByLabel('Rule options').getByText('set', { exact: true }).first().waitFor();
    await page.getByText('transform', { exact: true }).waitFor();
    const saved = await relay.pipeline.store.prisma.rule.findUniqueOrThrow({ where: { id: ruleId } });
    expect(saved.transform).toBe(CHAT);
    // Nothing was sent by the tests: the target got the one webhook, before the transform existed.
    expect(target.requests).toHaveLength(1);
  });

  it('sets a rate limit and a concurrency, shown on the rule page', async () => {
    await page.getByRole('button', { name: 'Edit rule' }).click();
    const dialog = page.getByRole('form', { name: 'Edit rule github' }); // edited in place, on the page
    await dialog.getByRole('button', { name: /^Pacing/ }).click();
    await dialog.getByRole('textbox', { name: 'Rate limit' }).fill('5');
    await dialog.getByRole('combobox', { name: 'Per' }).selectOption('second');
    await dialog.getByRole('textbox', { name: 'Burst' }).fill('10');
    await dialog.getByRole('textbox', { name: 'Max concurrency' }).fill('2');
    await dialog
      .getByRole('textbox', { name: 'Burst' })
      .evaluate('(input) => input.scrollIntoView({ block: "center" })');
    await shots.take(page, 'transform-02-pacing-fields');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('paced: 5 / second (burst 10), 2 at once').waitFor();
    await page.getByLabel('Rule options').getByText('5 / second (burst 10), 2 at once').waitFor();
    await center(page, '[aria-label="Rule options"]');
    await shots.take(page, 'transform-03-rule-page');
    const saved = await relay.pipeline.store.prisma.rule.findUniqueOrThrow({ where: { id: ruleId } });
    expect(saved).toMatchObject({ rateLimit: { limit: 5, period: 'second', burst: 10 }, maxConcurrency: 2 });
    // The transform was left as saved.
    expect(saved.transform).toBe(CHAT);
  });
});
