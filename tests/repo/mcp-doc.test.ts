import { readFileSync } from 'node:fs';
import path from 'node:path';
import { RELAY_TOOLS, renderToolsTable, withToolsTable } from '@relay/mcp';

describe('README.md', () => {
  it('counts the tools the MCP server serves (the tool catalog)', () => {
    const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
    const counts = [...readme.matchAll(/(\d+) (?:MCP )?tools\b/g)].map((m) => Number(m[1]));
    expect(counts.length).toBeGreaterThan(0);
    expect(counts).toEqual(counts.map(() => RELAY_TOOLS.length));
  });
});

describe('docs/mcp.md', () => {
  it('holds the tools table generated from the tool declarations (pnpm docs:mcp)', () => {
    const doc = readFileSync(path.resolve(__dirname, '../../docs/mcp.md'), 'utf8');
    expect(doc).toBe(withToolsTable(doc, renderToolsTable(RELAY_TOOLS)));
  });

  it('has one row per tool with its role and scope', () => {
    const table = renderToolsTable(RELAY_TOOLS);
    expect(table.split('\n')).toHaveLength(RELAY_TOOLS.length + 2);
    expect(table).toMatch(/^\| `list_sources` \| .+ \| viewer \| `events:read` \| readOnly, idempotent \|$/m);
  });
});
