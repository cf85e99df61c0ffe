/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// `pnpm test:compose`: the docker compose suite (compose-stack.test.ts), apart from the main jest run because it
// needs a Docker engine and minutes of image building. `pnpm test` runs it last and counts it in its totals line.
const config: Config = {
  rootDir: '../..',
  testEnvironment: 'node',
  roots: ['<rootDir>/tests/compose'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  reporters: ['default', '<rootDir>/packages/test-support/src/totals-reporter.cjs'],
  // The first build on a machine downloads every dependency into the image; a wait for a condition ends the test
  // sooner when it fails.
  testTimeout: 3_600_000,
  maxWorkers: 1,
};

export default config;
