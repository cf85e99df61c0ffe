import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';

const common = { tag: 'operations', access: 'public' } as const;

// The API's own description: the OpenAPI document and Swagger UI (whose files docs-assets.ts serves).
export const docsOperations = [
  defineOperation({
    ...common,
    method: 'get',
    path: '/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'The document.', schema: z.record(z.string(), z.unknown()) } },
    handler: ({ services, res }) => {
      res.type('application/json').send(services.docs.openApiJson());
      return undefined;
    },
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: '/docs',
    summary: 'Interactive API documentation (Swagger UI, served locally)',
    responses: { 200: { description: 'HTML page.', contentType: 'text/html', schema: z.string() } },
    // `/docs/` itself is the assets' index.html; relative asset URLs in it need the trailing slash.
    handler: ({ res }) => {
      res.redirect(301, '/docs/');
      return undefined;
    },
  }),
];
