import path from 'node:path';
import express, { Router } from 'express';

// Swagger UI from the swagger-ui-dist package (no CDN): its static files under /docs/, with our own
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

/**
 * The files of the docs page: assets, not operations. Mounted before GET /docs, which redirects
 * `/docs` to `/docs/`: the static handler passes directories without a trailing slash on to it.
 */
export function docsAssets(): Router {
  const router = Router();
  router.get('/docs/swagger-initializer.js', (_req, res) => {
    res.type('application/javascript').send(INITIALIZER);
  });
  router.use('/docs', express.static(swaggerUiDirectory(), { index: 'index.html', redirect: false }));
  return router;
}
