// Production build: each app becomes one ESM file with the workspace packages bundled in and
// node_modules left external (installed in the image). The Prisma client is generated CommonJS,
// so the bundle gets a real `require` for it.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const apps = ['api', 'delivery-worker'];

await Promise.all(
  apps.map((app) =>
    build({
      entryPoints: [path.join(root, 'apps', app, 'src/main.ts')],
      outfile: path.join(root, 'apps', app, 'dist/main.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20.19',
      sourcemap: true,
      packages: 'external',
      // Workspace packages are TypeScript sources: bundle them despite `packages: 'external'`.
      plugins: [
        {
          name: 'bundle-workspace',
          setup(b) {
            b.onResolve({ filter: /^@relay\// }, (args) => ({
              path: path.join(root, 'packages', args.path.slice('@relay/'.length), 'src/index.ts'),
            }));
          },
        },
      ],
      banner: { js: "import { createRequire as __relayCreateRequire } from 'node:module'; const require = __relayCreateRequire(import.meta.url);" },
      logLevel: 'warning',
    }),
  ),
);
console.log(`built ${apps.map((a) => `apps/${a}/dist/main.mjs`).join(', ')}`);
