import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'packages/db/src/generated/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
      // Only each process's main.ts reads the environment, through its validated config schema.
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings in main.ts through the config schema.' },
      ],
    },
  },
  {
    files: [
      '**/main.ts',
      'scripts/**',
      'bench/**',
      '**/*.test.ts',
      'tests/**',
      'packages/test-support/**',
      '*.config.*',
      '.ci/**',
    ],
    rules: { 'no-restricted-properties': 'off', 'no-console': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Dependencies point one way: core imports no workspace package; apps never import each other.
  {
    files: ['packages/core/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['@relay/*'] }] },
  },
  {
    files: ['packages/db/**', 'packages/queue/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['@relay/api', '@relay/delivery-worker', '@relay/db', '@relay/queue', '!@relay/core'] },
      ],
    },
  },
  {
    files: ['apps/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['@relay/api', '@relay/delivery-worker', '**/apps/**'] }] },
  },
);
