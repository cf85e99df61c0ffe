/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/packages', '<rootDir>/tests', '<rootDir>/bench'],
  testMatch: ['**/*.test.ts'],
  // The CLI's unit and TUI tests are vitest's (ink is ESM-only); its commands are tested here, under tests/cli.
  // The docker compose suite has its own run (`pnpm test:compose`, tests/compose/jest.config.ts).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/apps/cli/', '<rootDir>/tests/compose/'],
  // ESM-only dependencies (got and friends) are transformed too.
  // OpenTelemetry's CommonJS builds load node:http with import(), which jest's module sandbox refuses: swc turns
  // those into require() (tests/e2e/tracing.test.ts exports spans through them).
  transform: {
    '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
    '/@opentelemetry/.+\\.cjs$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  globalSetup: '<rootDir>/packages/test-support/src/global-setup.ts',
  globalTeardown: '<rootDir>/packages/test-support/src/global-teardown.ts',
  reporters: ['default', '<rootDir>/packages/test-support/src/totals-reporter.cjs'],
  // A hang guard, not a speed check: a test that takes 5 s alone took over 30 s in CI beside the other suites on two
  // shared cores (tests/e2e/retention.test.ts), so the bound is one a busy machine meets.
  testTimeout: 120_000,
  maxWorkers: 2,
};

export default config;
