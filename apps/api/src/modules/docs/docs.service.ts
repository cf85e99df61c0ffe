import { buildOpenApiDocument } from '../../openapi/openapi-document';

export interface DocsServiceDeps {
  version: string;
  /** PUBLIC_BASE_URL: the document's server. */
  serverUrl: string | undefined;
}

// The OpenAPI document is built from the operation declarations once, on first request: they do
// not change while the process runs.
export function createDocsService(deps: DocsServiceDeps) {
  let cached: string | undefined;
  return {
    /** The document, serialised. */
    openApiJson(): string {
      cached ??= JSON.stringify(buildOpenApiDocument({ version: deps.version, serverUrl: deps.serverUrl }));
      return cached;
    },
  };
}
