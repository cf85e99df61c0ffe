import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

// The typed client (packages/client) is generated from the operation declarations: a change to an
// operation must come with `pnpm client:generate`, or the dashboard, CLI and MCP server drift from the API.
describe('packages/client/src/schema.d.ts', () => {
  it('is what `pnpm client:generate` writes from the current OpenAPI document', () => {
    // Regenerated in memory, in a child process (Prettier's ESM cannot load inside jest's CommonJS).
    const expected = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/generate-client.ts', '--stdout'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const committed = readFileSync(path.join(root, 'packages/client/src/schema.d.ts'), 'utf8');
    if (committed !== expected) throw new Error('packages/client/src/schema.d.ts is stale: run `pnpm client:generate`');
    expect(committed).toContain("'/events/{id}/body'");
  });
});
