import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

// Regenerated in memory, in a child process (Prettier's ESM cannot load inside jest's CommonJS): every generated
// file by its path.
const generated = (): Record<string, string> =>
  JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/generate-client.ts', '--stdout'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    }),
  );

// The typed client (packages/client) is generated from the operation declarations: a change to an
// operation must come with `pnpm client:generate`, or the dashboard, CLI and MCP server drift from the API.
describe("the typed client's generated files", () => {
  let files: Record<string, string>;
  beforeAll(() => {
    files = generated();
  });

  it.each(['packages/client/src/schema.d.ts', 'packages/client/src/operation-access.ts'])(
    '%s is what `pnpm client:generate` writes from the current OpenAPI document',
    (file) => {
      const committed = readFileSync(path.join(root, file), 'utf8');
      if (committed !== files[file]) throw new Error(`${file} is stale: run \`pnpm client:generate\``);
    },
  );

  it("generates the paths and each operation's access from the document", () => {
    expect(Object.keys(files).sort()).toEqual([
      'packages/client/src/operation-access.ts',
      'packages/client/src/schema.d.ts',
    ]);
    expect(files['packages/client/src/schema.d.ts']).toContain("'/events/{id}/body'");
    // x-required-role and x-api-key-scope of the document, a public operation, and a platform operators' one.
    const access = files['packages/client/src/operation-access.ts'];
    expect(access).toContain("'DELETE /events/{id}': { role: 'admin', scope: 'organization:manage' },");
    expect(access).toContain("'GET /config/endpoint': 'public',");
    expect(access).toContain("'GET /api/platform/organizations': 'operator',");
  });
});
