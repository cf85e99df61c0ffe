// Builds the `relay` CLI into apps/cli/dist (or --outdir DIR): relay.mjs, one ESM file with every dependency
// bundled in, that runs with plain `node` (Node ≥ 20.19) and no node_modules; the terminal UI (ink, React) is a
// chunk beside it that relay.mjs imports only when `relay tui` runs.
// Usage: node scripts/build-cli.mjs [--outdir DIR] [--quiet]
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'apps', 'cli');

export async function buildCli(outdir = path.join(cli, 'dist')) {
  await build({
    entryPoints: { relay: path.join(cli, 'src/main.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    chunkNames: '[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node24',
    jsx: 'automatic',
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    // Workspace packages are TypeScript sources (their package.json points at src/index.ts).
    mainFields: ['module', 'main'],
    define: { 'process.env.NODE_ENV': '"production"' },
    // ink loads React's devtools only when DEV=true; never shipped.
    external: ['react-devtools-core'],
    // Bundled CommonJS dependencies `require()` Node's modules: give the ESM chunks a real `require`.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __relayRequire } from 'node:module';\nconst require = __relayRequire(import.meta.url);",
    },
  });
  chmodSync(path.join(outdir, 'relay.mjs'), 0o755);
  return path.join(outdir, 'relay.mjs');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--outdir');
  const file = await buildCli(at === -1 ? undefined : path.resolve(process.argv[at + 1]));
  if (!process.argv.includes('--quiet')) console.log(`built ${path.relative(process.cwd(), file)}`);
}
