import path from 'node:path';
import express, { Router } from 'express';

// Swagger UI from the swagger-ui-dist package (no CDN): its static files under /docs, with our own
// initializer pointing it at /openapi.json instead of the package's demo URL.
const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({ url: '../openapi.json', dom_id: '#swagger-ui', deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
};
`;

function swaggerUiDirectory(): string {
  // `require` is CommonJS under tests and the esbuild banner's createRequire in the ESM bundle.
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

export function docsRoutes(options: { document: () => Record<string, unknown> }): Router {
  const router = Router();
  let cached: string | undefined;
  router.get('/openapi.json', (_req, res) => {
    cached ??= JSON.stringify(options.document());
    res.type('application/json').send(cached);
  });
  router.get('/docs', (req, res, next) => {
    // Relative asset URLs in index.html need the trailing slash.
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, '/docs/');
    next();
  });
  router.get('/docs/swagger-initializer.js', (_req, res) => {
    res.type('application/javascript').send(INITIALIZER);
  });
  router.use('/docs', express.static(swaggerUiDirectory(), { index: 'index.html' }));
  return router;
}
