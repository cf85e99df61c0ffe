import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderAccessTable, withAccessTable } from '../../apps/api/src/modules/authorization-doc';
import { ALL_OPERATIONS } from '../../apps/api/src/composition/catalog';

describe('docs/authorization.md', () => {
  it('holds the authorization table generated from the operation declarations (pnpm docs:authorization)', () => {
    const doc = readFileSync(path.resolve(__dirname, '../../docs/authorization.md'), 'utf8');
    expect(doc).toBe(withAccessTable(doc, renderAccessTable(ALL_OPERATIONS)));
  });

  it('has a row for every operation', () => {
    const table = renderAccessTable(ALL_OPERATIONS);
    expect(table.split('\n')).toHaveLength(ALL_OPERATIONS.length + 2);
    expect(table).toContain('| `GET /api/domains` | admin | `organization:manage` |');
  });
});
