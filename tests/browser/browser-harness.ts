import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
// Debian's chromium, never a downloaded browser (.ci/run installs it with apt).
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const DASHBOARD = path.resolve(__dirname, '../../apps/dashboard');
// Vite's JS API in a child process: Vite is ESM-only and jest runs CommonJS.
const BUILD = `
const [vitePath, root, outDir] = process.argv.slice(1);
const vite = await import(vitePath);
const build = { outDir, emptyOutDir: true };
await vite.build({ root, configFile: root + '/vite.config.ts', logLevel: 'warn', build });
`;

/** Builds the dashboard once into a temporary folder (what DASHBOARD_DIR then serves). */
export function buildDashboard(): string {
  const outDir = mkdtempSync(path.join(tmpdir(), 'relay-dashboard-build-'));
  const vitePath = pathToFileURL(createRequire(path.join(DASHBOARD, 'package.json')).resolve('vite')).href;
  execFileSync(process.execPath, ['--input-type=module', '-e', BUILD, vitePath, DASHBOARD, outDir], {
    stdio: 'inherit',
  });
  return outDir;
}

/** A headless chromium with a fresh profile. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

/**
 * Screenshots go to a temporary folder (printed once), one full-page file per page visited. With
 * DOCS_SCREENSHOTS_DIR set (pnpm docs:screenshots) they replace the documentation's images there instead:
 * the viewport only, so each image keeps the 1280x800 size docs/dashboard.md is laid out for.
 */
export function screenshotter(): { dir: string; take(page: Page, name: string): Promise<void> } {
  const docsDir = process.env.DOCS_SCREENSHOTS_DIR;
  const dir = docsDir ? path.resolve(docsDir) : path.join(tmpdir(), `relay-dashboard-screens-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  return {
    dir,
    take: async (page, name) => {
      await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: !docsDir, animations: 'disabled' });
    },
  };
}
