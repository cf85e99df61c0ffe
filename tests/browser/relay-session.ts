import { rmSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { FAST_HASH_ENV, startPipeline, type Env, type Pipeline } from '../e2e/harness';
import { listen } from '../e2e/sse-client';
import { buildDashboard, launchBrowser } from './browser-harness';

/** The built dashboard served by a listening api (with a worker), and a browser to drive it. */
export interface RelaySession {
  pipeline: Pipeline;
  browser: Browser;
  /** The api's base URL; the dashboard is under /app/. */
  url: string;
  close(): Promise<void>;
}

export async function startRelaySession(api: Env = {}): Promise<RelaySession> {
  // The browser first: a machine without chromium fails here with nothing started, instead of leaving a relay's
  // background work running into the next test files of the same jest worker.
  const browser = await launchBrowser();
  try {
    const dashboardDir = buildDashboard();
    const pipeline = await startPipeline({
      api: { ...FAST_HASH_ENV, SESSION_SECRET: 'browser-test', DASHBOARD_DIR: dashboardDir, ...api },
    });
    const served = await listen(pipeline.api.app);
    return {
      pipeline,
      browser,
      url: served.url,
      async close() {
        await browser.close();
        await served.close();
        await pipeline.close();
        rmSync(dashboardDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** A new 1280x800 browser context (the size the screenshots are taken at). */
export const newContext = (browser: Browser): Promise<BrowserContext> =>
  browser.newContext({ viewport: { width: 1280, height: 800 } });

/** Signs in on the login page and waits until the dashboard has taken the caller somewhere else. */
export async function signIn(page: Page, url: string, username: string, password: string): Promise<void> {
  await page.goto(`${url}/app/login`);
  await page.getByRole('textbox', { name: 'Username' }).fill(username);
  await page.locator('input[type=password]').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/app/login'));
}

/** Follows a link of the main navigation bar. */
export const nav = (page: Page, label: string): Promise<void> =>
  page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: label }).click();
