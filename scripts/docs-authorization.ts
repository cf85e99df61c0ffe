// Regenerates the authorization table in docs/authorization.md from the operation declarations.
// `pnpm docs:authorization`; tests/repo/authorization-doc.test.ts fails while the file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderAccessTable, withAccessTable } from '../apps/api/src/modules/authorization-doc';
import { ALL_OPERATIONS } from '../apps/api/src/composition/catalog';

const file = path.resolve(__dirname, '../docs/authorization.md');
const current = readFileSync(file, 'utf8');
const next = withAccessTable(current, renderAccessTable(ALL_OPERATIONS));
if (next !== current) writeFileSync(file, next);
console.log(next === current ? 'docs/authorization.md is current' : 'docs/authorization.md updated');
