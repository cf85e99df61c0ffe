// Regenerates the tools table in docs/mcp.md from the tool declarations (packages/mcp).
// `pnpm docs:mcp`; tests/repo/mcp-doc.test.ts fails while the file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RELAY_TOOLS, renderToolsTable, withToolsTable } from '@relay/mcp';

const file = path.resolve(__dirname, '../docs/mcp.md');
const current = readFileSync(file, 'utf8');
const next = withToolsTable(current, renderToolsTable(RELAY_TOOLS));
if (next !== current) writeFileSync(file, next);
console.log(next === current ? 'docs/mcp.md is current' : 'docs/mcp.md updated');
