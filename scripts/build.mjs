// Production build: each app becomes one ESM file with the workspace packages bundled in and
// node_modules left external (installed in the image). The Prisma client is generated CommonJS,
// so the bundle gets a real `require` for it. The dashboard is built by Vite into apps/dashboard/dist,
// which the api serves under /app/ (DASHBOARD_DIR); the `relay` CLI into apps/cli/dist (scripts/build-cli.mjs).
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildCli } from './build-cli.mjs';
import { bundleWorkspace } from './lib/bundle-workspace.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const apps = ['api', 'delivery-worker'];

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

await Promise.all([
  buildDashboard(),
  buildCli(),
  ...apps.map(async (app) => {
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
      plugins: [bundleWorkspace(root)],
      banner: {
        js:
          "import { createRequire as __relayCreateRequire } from 'node:module'; " +
          'const require = __relayCreateRequire(import.meta.url);',
      },
      logLevel: 'warning',
      metafile: true,
    });
    assertResolvable(app, result.metafile);
  }),
]);
console.log(
  `built ${apps.map((a) => `apps/${a}/dist/main.mjs`).join(', ')}, apps/dashboard/dist, apps/cli/dist/relay.mjs`,
);
