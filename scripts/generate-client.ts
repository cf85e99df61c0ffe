// Regenerates packages/client/src/schema.d.ts: the api's OpenAPI document, built in-process from the
// operation declarations, through openapi-typescript, formatted by Prettier with the repository's settings.
// `pnpm client:generate` writes the file; `--stdout` prints it instead (tests/repo/client-fresh.test.ts
// compares that with the committed file, in a child process: Prettier cannot load inside jest's CommonJS).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import prettier from 'prettier';
import { ALL_OPERATIONS } from '../apps/api/src/composition/catalog';
import { buildOpenApiDocument } from '../apps/api/src/openapi/openapi-document';
import { renderSchemaTypes } from '../packages/client/src/codegen/render-schema';

const file = path.resolve(__dirname, '../packages/client/src/schema.d.ts');

async function schemaSource(): Promise<string> {
  // No server URL and a fixed version: the generated types depend on the declarations only.
  const source = await renderSchemaTypes(buildOpenApiDocument(ALL_OPERATIONS, { version: '0.0.0' }));
  const options = await prettier.resolveConfig(file);
  return prettier.format(source, { ...options, filepath: file });
}

void (async () => {
  const next = await schemaSource();
  if (process.argv.includes('--stdout')) return void process.stdout.write(next);
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // The first generation.
  }
  if (next !== current) writeFileSync(file, next);
  console.log(
    next === current ? 'packages/client/src/schema.d.ts is current' : 'packages/client/src/schema.d.ts updated',
  );
})();
