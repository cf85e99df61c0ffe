// The dashboard's size budget, measured (not a test): the JavaScript a first visit loads — the entry script
// and the chunks index.html preloads — gzipped, against 300 KB; lazy page chunks are listed apart.
// Usage: pnpm bench:dashboard (builds the dashboard into a temporary folder first).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 300;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dashboard = path.join(root, 'apps', 'dashboard');
const outDir = mkdtempSync(path.join(tmpdir(), 'relay-dashboard-budget-'));

try {
  // Vite is the dashboard's own dependency: loaded from there, with the app's vite.config.ts.
  const vite = await import(pathToFileURL(createRequire(path.join(dashboard, 'package.json')).resolve('vite')).href);
  await vite.build({
    root: dashboard,
    configFile: path.join(dashboard, 'vite.config.ts'),
    logLevel: 'error',
    build: { outDir, emptyOutDir: true },
  });
  const html = readFileSync(path.join(outDir, 'index.html'), 'utf8');
  // index.html refers to assets as /app/assets/<file>: the entry (script src) and its preloaded imports.
  const initial = new Set([...html.matchAll(/(?:src|href)="\/app\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]));
  const gz = (file) => gzipSync(readFileSync(path.join(outDir, file))).length;
  const kb = (bytes) => (bytes / 1024).toFixed(1);
  const all = readdirSync(path.join(outDir, 'assets'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => `assets/${f}`);
  let initialBytes = 0;
  console.log('initial JavaScript (gzip):');
  for (const file of initial) {
    initialBytes += gz(file);
    console.log(`  ${kb(gz(file)).padStart(8)} KB  ${file}`);
  }
  console.log('lazy chunks (gzip):');
  for (const file of all.filter((f) => !initial.has(f)).sort((a, b) => gz(b) - gz(a)))
    console.log(`  ${kb(gz(file)).padStart(8)} KB  ${file}`);
  const within = initialBytes <= BUDGET_KB * 1024;
  console.log(
    `\ninitial JS: ${kb(initialBytes)} KB gzip (budget ${BUDGET_KB} KB): ${within ? 'within' : 'OVER'} budget`,
  );
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
