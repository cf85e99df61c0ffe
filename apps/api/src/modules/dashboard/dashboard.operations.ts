import { defineOperation } from '../../composition/define-operation';

const common = { tag: 'dashboard', access: 'public' } as const;

// The operations dashboard, a single-page app (dashboard-assets.ts serves its files under /app/).
// Declared as operations so `app` is a reserved first path segment (never a webhook source) and the
// entry points are documented.
export const dashboardOperations = [
  defineOperation({
    ...common,
    method: 'get',
    path: '/',
    summary: 'The front door: redirects to the dashboard at /app/',
    responses: { 302: { description: 'To /app/.' } },
    handler: ({ res }) => {
      res.redirect(302, '/app/');
      return undefined;
    },
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: '/app',
    summary: 'The dashboard (a single-page app under /app/)',
    description:
      'Redirects to /app/. Every GET under /app/ answers a built file: hashed assets under /app/assets/ are cached ' +
      'for a year (`public, max-age=31536000, immutable`), any other path answers index.html (`no-cache`), the ' +
      "app's own router showing the page. Each goes out as the build's brotli or gzip copy when `Accept-Encoding` " +
      'allows (`Content-Encoding`, `Vary: Accept-Encoding`). 503 `dashboard_not_built` while DASHBOARD_DIR has no ' +
      'build (`pnpm build`).',
    responses: { 301: { description: 'To /app/.' } },
    // Relative URLs in the app resolve under /app/ only with the trailing slash.
    handler: ({ res }) => {
      res.redirect(301, '/app/');
      return undefined;
    },
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: '/favicon.ico',
    summary: "The dashboard's icon, where browsers look for it first",
    description:
      'Redirects to the SVG icon at /app/favicon.svg (which the dashboard names in its index.html too). Declared ' +
      'so that `favicon.ico` is a reserved first path segment: no webhook source.',
    responses: { 301: { description: 'To /app/favicon.svg.' } },
    handler: ({ res }) => {
      res.redirect(301, '/app/favicon.svg');
      return undefined;
    },
  }),
];
