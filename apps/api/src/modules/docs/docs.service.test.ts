import { createDocsService } from './docs.service';

describe('docs service', () => {
  it('serialises the OpenAPI document of every operation once', () => {
    const docs = createDocsService({ version: '1.2.3', serverUrl: 'https://relay.example.com' });
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
  });
});
