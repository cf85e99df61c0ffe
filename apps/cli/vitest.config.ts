import { defineConfig } from 'vitest/config';

// Unit and component tests of the CLI and the TUI (ink is ESM with top-level await, which jest's CommonJS cannot
// load). The commands against a real relay are jest suites under tests/cli, spawning the built `relay`.
export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    // A loaded 2-core machine (a second suite beside this one) stretches every step; above the tests' own waits
    // (test/wait-limit.ts), so a wait that gives up says what it waited for.
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});
