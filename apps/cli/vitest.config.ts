import { defineConfig } from 'vitest/config';

// Unit and component tests of the CLI and the TUI (ink is ESM with top-level await, which jest's CommonJS cannot
// load). The commands against a real relay are jest suites under tests/cli, spawning the built `relay`.
export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    testTimeout: 20_000,
  },
});
