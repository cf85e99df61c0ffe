import { ALL_OPERATIONS } from '../../composition/catalog';
import { buildOpenApiDocument } from '../../openapi/openapi-document';
import { createDocsService } from './docs.service';

describe('docs service', () => {
  it('serialises the OpenAPI document of every operation once', () => {
    let builds = 0;
    const docs = createDocsService({
      openApiDocument: () => {
        builds += 1;
        return buildOpenApiDocument(ALL_OPERATIONS, { version: '1.2.3', serverUrl: 'https://relay.example.com' });
      },
    });
    const document = JSON.parse(docs.openApiJson());
    expect(document).toMatchObject({
      openapi: '3.1.0',
      info: { version: '1.2.3' },
      servers: [{ url: 'https://relay.example.com' }],
    });
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/health', '/ready', '/openapi.json', '/docs', '/', '/{source}', '/api/platform/audit']),
    );
    expect(docs.openApiJson()).toBe(docs.openApiJson());
    expect(builds).toBe(1);
  });
});
