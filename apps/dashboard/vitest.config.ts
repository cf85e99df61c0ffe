import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.tsx', 'test/**/*.test.tsx'],
    setupFiles: ['./test/setup.ts'],
    css: false,
    // Component tests render Mantine pages in jsdom: seconds each, tens of seconds for a long form on a loaded 2-core
    // machine (a second suite beside it), not vitest's 5 s default. Above the queries' 30 s (test/setup.ts), so a
    // query that gives up reports what it did not find rather than a bare time-out.
    testTimeout: 90_000,
    hookTimeout: 90_000,
  },
});
