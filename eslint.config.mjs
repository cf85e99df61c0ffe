import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'packages/db/src/generated/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // An async function without await is how a function keeps a promise-returning contract.
      '@typescript-eslint/require-await': 'off',
      'no-console': 'error',
      // Only each process's main.ts reads the environment, through its validated config schema.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings in main.ts through the config schema.' },
      ],
    },
  },
  {
    // Plain JavaScript (scripts, bench, config files) is not part of the TypeScript project.
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: [
      '**/main.ts',
      'scripts/**',
      'bench/**',
      '**/*.test.ts',
      '**/test-fixtures/**',
      'tests/**',
      'packages/test-support/**',
      '*.config.*',
    ],
    rules: { 'no-restricted-properties': 'off', 'no-console': 'off' },
  },
  {
    // Tests read HTTP answers (supertest's `body` is `any` by design) and assert on their shape.
    files: ['**/*.test.ts', 'tests/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Dependencies point one way: core and the service kit import no workspace package; data, queue and
  // contracts packages import only core; apps never import each other.
  {
    files: ['packages/core/**', 'packages/service-kit/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['@relay/*'] }] },
  },
  {
    files: ['packages/db/**', 'packages/queue/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            '@relay/api',
            '@relay/delivery-worker',
            '@relay/db',
            '@relay/queue',
            '@relay/contracts',
            '@relay/service-kit',
            '!@relay/core',
          ],
        },
      ],
    },
  },
  // The transform sandbox runs untrusted code: it may lean on core, nothing of the server.
  {
    files: ['packages/transform/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['@relay/*', '!@relay/core'] }] },
  },
  // The API's schemas are shared with clients and the MCP server: zod and core only, no HTTP or database.
  {
    files: ['packages/contracts/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['@relay/*', '!@relay/core', 'express', '@prisma/*', 'pg', 'ioredis', 'bullmq'] },
      ],
    },
  },
  {
    files: ['apps/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['@relay/api', '@relay/delivery-worker', '**/apps/**'] }] },
  },
  // The typed client runs in browsers and in Node, under any UI (dashboard, CLI, TUI, MCP server): no
  // Node built-ins, workspace packages or UI frameworks. Its generator (codegen/) runs in Node only.
  {
    files: ['packages/client/src/**'],
    ignores: ['packages/client/src/codegen/**', '**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['node:*', '@relay/*', 'react', 'react-dom', '@mantine/*', '@tanstack/*', 'ink', 'express'] },
      ],
    },
  },
  // The dashboard is a client of the REST API: of the workspace it imports only the typed client.
  {
    files: ['apps/dashboard/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': ['error', { patterns: ['@relay/*', '!@relay/client', '**/apps/**'] }] },
  },
  // So is the CLI (and its TUI, and its stdio MCP server): the typed client over HTTP, never a server package.
  {
    files: ['apps/cli/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@relay/*', '!@relay/client', '!@relay/mcp', '**/apps/**'] }],
    },
  },
  // The MCP server is a client of the REST API too: the typed client, the MCP SDK and zod, and the API's own input
  // schemas (contracts: zod and core, no HTTP or database) as its tools' input shapes, never a copy of them.
  {
    files: ['packages/mcp/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['@relay/*', '!@relay/client', '!@relay/contracts', '**/apps/**'] },
      ],
    },
  },
);
