// `pnpm circular`: the import-cycle check, run by `pnpm test` (tests/repo/import-cycles.test.ts runs it too).
import { defineConfig } from 'dpdm';

export default defineConfig({
  files: ['apps/*/src/**/*.{ts,tsx}', 'packages/*/src/**/*.{ts,tsx}'],
  // Prisma's generated client imports its own types in circles; it is Prisma's code, not ours.
  exclude: '/node_modules/|/packages/db/src/generated/',
  // Type-only imports count: a circle of `import type` still ties its files together (35 files of the api
  // were one loop while the check transformed them away), and the next value import makes it a real one.
  transform: false,
  exitCode: 'circular:1',
  tree: false,
  warning: false,
});
