// `prisma generate` needs no schema engine, but the CLI insists on one and would download it.
// Pointing PRISMA_SCHEMA_ENGINE_BINARY at any executable keeps generation offline.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate'], {
  stdio: 'inherit',
  env: { PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true', PRISMA_HIDE_UPDATE_MESSAGE: '1', ...process.env },
});
process.exit(result.status ?? 1);
