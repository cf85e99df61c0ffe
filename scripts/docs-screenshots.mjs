// Refreshes docs/images/dashboard/*.png: runs the browser suite (tests/browser) with DOCS_SCREENSHOTS_DIR set, so
// its screenshotter writes viewport-sized images under their stable names. The suite writes into a temporary
// folder first: the committed images are replaced only when every flow passed, and images of pages that are no
// longer visited are removed with the rest.
// Usage: pnpm docs:screenshots (needs Postgres, Redis and /usr/bin/chromium, like the browser suite).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const images = path.join(root, 'docs', 'images', 'dashboard');
const fresh = mkdtempSync(path.join(tmpdir(), 'relay-docs-screens-'));

const jest = spawnSync('pnpm', ['exec', 'jest', 'tests/browser'], {
  cwd: root,
  env: { ...process.env, DOCS_SCREENSHOTS_DIR: fresh },
  stdio: 'inherit',
});
const status = jest.status ?? 1;
if (status === 0) {
  mkdirSync(images, { recursive: true });
  for (const old of readdirSync(images).filter((f) => f.endsWith('.png'))) rmSync(path.join(images, old));
  const shots = readdirSync(fresh).filter((f) => f.endsWith('.png'));
  for (const shot of shots) copyFileSync(path.join(fresh, shot), path.join(images, shot));
  console.log(`${shots.length} screenshots written to ${path.relative(root, images)}/`);
} else {
  console.error('The browser suite failed: docs/images/dashboard/ is unchanged.');
}
rmSync(fresh, { recursive: true, force: true });
process.exit(status);
