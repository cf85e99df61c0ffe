export interface DocsServiceDeps {
  /**
   * Builds the OpenAPI document of every operation. The composition root passes it in (runtime.ts):
   * the document is built from the route catalog, which imports every module, this one too.
   */
  openApiDocument: () => unknown;
}

// The document is built once, on first request: the operation declarations do not change while the
// process runs.
export function createDocsService(deps: DocsServiceDeps) {
  let cached: string | undefined;
  return {
    /** The document, serialised. */
    openApiJson(): string {
      cached ??= JSON.stringify(deps.openApiDocument());
      return cached;
    },
  };
}
