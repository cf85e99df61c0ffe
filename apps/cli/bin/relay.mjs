#!/usr/bin/env node
// The `relay` executable as installed (package.json "bin"): runs the bundle that `pnpm build` (or
// `node scripts/build-cli.mjs`) writes to dist/. A launcher rather than the bundle itself, so the link exists
// from the first `pnpm install` of a fresh clone, before anything is built.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/relay.mjs', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('relay: the CLI is not built yet; run `pnpm build` (or `node scripts/build-cli.mjs`)\n');
  process.exit(1);
}
await import(bundle.href);
