import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATION_ACCESS } from '@relay/client';
import { RELAY_TOOLS } from '@relay/mcp';

const sources = path.resolve(__dirname, '../../packages/mcp/src');
const files = readdirSync(sources, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(path.join(sources, file), 'utf8') }));

const rows = Object.values(OPERATION_ACCESS).flatMap((access) => (typeof access === 'object' ? [access] : []));
const scopes = new Set(rows.flatMap((row) => (row.scope ? [row.scope] : [])));
const roles = new Set(rows.map((row) => row.role));

// Every MCP tool asks what its REST operation asks, read from the access map generated from the OpenAPI document
// (packages/client/src/operation-access.ts): none writes a role or scope of its own, so none can drift from the API.
describe("MCP tools' access", () => {
  it.each(RELAY_TOOLS.map((tool) => [tool.name, tool.operation] as const))(
    '%s names an operation of the generated access map (%s) that a member may call',
    (_name, operation) => {
      expect(Object.keys(OPERATION_ACCESS)).toContain(operation);
      expect(OPERATION_ACCESS[operation]).not.toBe('operator');
    },
  );

  it.each(RELAY_TOOLS.map((tool) => [tool.name, tool.operation] as const))(
    '%s calls the operation it names (%s) through the typed client',
    (_name, operation) => {
      const [method, route] = operation.split(' ') as [string, string];
      const call = `.${method}('${route}'`;
      expect(files.filter(({ text }) => text.includes(call)).map(({ file }) => file)).not.toEqual([]);
    },
  );

  it('restates no role or scope in the MCP server: access comes from the generated map', () => {
    expect(scopes.size).toBeGreaterThan(0);
    const literals = [...scopes, ...roles].map((value) => new RegExp(`['"\`]${value}['"\`]`));
    const restated = files.flatMap(({ file, text }) =>
      text
        .split('\n')
        .flatMap((line, i) => (literals.some((literal) => literal.test(line)) ? [`${file}:${i + 1}`] : [])),
    );
    expect(restated).toEqual([]);
  });
});
