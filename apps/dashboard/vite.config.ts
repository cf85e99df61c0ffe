import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompress } from './vite-precompress.ts';

// The api serves the built app under /app/; in development Vite forwards the API's paths to a local api.
const api = 'http://127.0.0.1:3000';
// /admin: the queue view the platform console links to.
const proxied = ['/api', '/events', '/rules', '/config', '/stats', '/openapi.json', '/health', '/ready', '/admin'];

export default defineConfig({
  base: '/app/',
  plugins: [react(), precompress()],
  build: { outDir: 'dist', emptyOutDir: true },
  server: { proxy: Object.fromEntries(proxied.map((path) => [path, { target: api, changeOrigin: false }])) },
});
