// Regenerates the typed client's generated files from the api's OpenAPI document, built in-process from the
// operation declarations: packages/client/src/schema.d.ts (through openapi-typescript) and
// packages/client/src/operation-access.ts (each operation's role and scope), formatted by Prettier with the
// repository's settings. `pnpm client:generate` writes them; `--stdout` prints them instead, as one JSON object
// keyed by path (tests/repo/client-fresh.test.ts compares that with the committed files, in a child process:
// Prettier cannot load inside jest's CommonJS).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import prettier from 'prettier';
import { ALL_OPERATIONS } from '../apps/api/src/composition/catalog';
import { buildOpenApiDocument } from '../apps/api/src/openapi/openapi-document';
import { renderOperationAccess } from '../packages/client/src/codegen/render-access';
import { renderSchemaTypes } from '../packages/client/src/codegen/render-schema';

const root = path.resolve(__dirname, '..');

async function formatted(file: string, source: string): Promise<string> {
  const options = await prettier.resolveConfig(path.join(root, file));
  return prettier.format(source, { ...options, filepath: path.join(root, file) });
}

async function generatedFiles(): Promise<Record<string, string>> {
  // No server URL and a fixed version: the generated files depend on the declarations only.
  const document = buildOpenApiDocument(ALL_OPERATIONS, { version: '0.0.0' });
  const schema = 'packages/client/src/schema.d.ts';
  const access = 'packages/client/src/operation-access.ts';
  return {
    [schema]: await formatted(schema, await renderSchemaTypes(document)),
    [access]: await formatted(access, renderOperationAccess(document)),
  };
}

void (async () => {
  const files = await generatedFiles();
  if (process.argv.includes('--stdout')) return void process.stdout.write(JSON.stringify(files));
  for (const [file, next] of Object.entries(files)) {
    let current = '';
    try {
      current = readFileSync(path.join(root, file), 'utf8');
    } catch {
      // The first generation.
    }
    if (next !== current) writeFileSync(path.join(root, file), next);
    console.log(next === current ? `${file} is current` : `${file} updated`);
  }
})();
