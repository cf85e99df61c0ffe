import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.tsx', 'test/**/*.test.tsx'],
    setupFiles: ['./test/setup.ts'],
    css: false,
    // Component tests render Mantine pages in jsdom: seconds each on a loaded 2-core machine, not vitest's 5 s default.
    testTimeout: 20_000,
  },
});
