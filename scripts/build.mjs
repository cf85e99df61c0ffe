// Production build: each app becomes one ESM file with the workspace packages bundled in and
// node_modules left external (installed in the image). The Prisma client is generated CommonJS,
// so the bundle gets a real `require` for it. The dashboard is built by Vite into apps/dashboard/dist,
// which the api serves under /app/ (DASHBOARD_DIR); the `relay` CLI into apps/cli/dist (scripts/build-cli.mjs).
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildCli } from './build-cli.mjs';
import { withBuildLock } from './lib/build-lock.mjs';
import { bundleWorkspace } from './lib/bundle-workspace.mjs';
import { latin1Bundle } from './lib/latin1-bundle.mjs';
import { prismaWasmLoader } from './lib/prisma-wasm-loader.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// `node scripts/build.mjs [api] [worker]`: what to build; nothing named builds everything. `pnpm start:api` builds
// the api (and the dashboard it serves), `pnpm start:worker` the worker only, so neither rewrites the other's
// files while it runs; builds still take turns (build-lock.mjs), as two of the same may start at once.
const TARGETS = { api: ['api'], worker: ['delivery-worker'] };
const named = process.argv.slice(2);
const unknown = named.filter((name) => !(name in TARGETS));
if (unknown.length)
  throw new Error(`unknown build target ${unknown.join(', ')}: use ${Object.keys(TARGETS).join(', ')}`);
const everything = named.length === 0;
const apps = everything ? ['api', 'delivery-worker'] : named.flatMap((name) => TARGETS[name]);
const withDashboard = apps.includes('api');

// The bundles import their external packages at run time from the app's own node_modules (pnpm
// links only declared dependencies), so every external import must be a dependency of the app.
function assertResolvable(app, metafile) {
  const requireFromApp = createRequire(path.join(root, 'apps', app, 'package.json'));
  const missing = new Set();
  for (const output of Object.values(metafile.outputs)) {
    for (const { path: spec, external } of output.imports) {
      if (!external || spec.startsWith('node:')) continue;
      try {
        requireFromApp.resolve(spec);
      } catch {
        missing.add(spec);
      }
    }
  }
  if (missing.size) throw new Error(`apps/${app}: add to its package.json dependencies: ${[...missing].join(', ')}`);
}

// Vite is the dashboard's own dependency: loaded from there, with the app's vite.config.ts.
async function buildDashboard() {
  const dashboard = path.join(root, 'apps', 'dashboard');
  const vite = await import(pathToFileURL(createRequire(path.join(dashboard, 'package.json')).resolve('vite')).href);
  await vite.build({ root: dashboard, configFile: path.join(dashboard, 'vite.config.ts'), logLevel: 'warn' });
}

const buildApp = async (app) => {
  const result = await build({
    entryPoints: [path.join(root, 'apps', app, 'src/main.ts')],
    outfile: path.join(root, 'apps', app, 'dist/main.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    sourcemap: true,
    packages: 'external',
    // Workspace packages are TypeScript sources: bundle them despite `packages: 'external'`.
    plugins: [bundleWorkspace(root), prismaWasmLoader()],
    banner: {
      js:
        "import { createRequire as __relayCreateRequire } from 'node:module'; " +
        'const require = __relayCreateRequire(import.meta.url);',
    },
    logLevel: 'warning',
    metafile: true,
  });
  assertResolvable(app, result.metafile);
  await latin1Bundle(path.join(root, 'apps', app, 'dist/main.mjs'));
};

await withBuildLock(path.join(root, 'node_modules', '.cache', 'relay-build.lock'), () =>
  Promise.all([
    ...(withDashboard ? [buildDashboard()] : []),
    ...(everything ? [buildCli()] : []),
    ...apps.map(buildApp),
  ]),
);
const built = [
  ...apps.map((a) => `apps/${a}/dist/main.mjs`),
  ...(withDashboard ? ['apps/dashboard/dist'] : []),
  ...(everything ? ['apps/cli/dist/relay.mjs'] : []),
];
console.log(`built ${built.join(', ')}`);
