import { operationKey, type Access, type HttpMethod } from '../http/operation';

export const DOC_START = '<!-- generated:access-table:start (pnpm docs:authorization) -->';
export const DOC_END = '<!-- generated:access-table:end -->';

const who = (access: Access): [string, string] => {
  if (access === 'public') return ['anyone', '–'];
  if (access === 'operator') return ['platform operator (session)', '–'];
  return [access.role, access.scope ? `\`${access.scope}\`` : '– (the caller itself)'];
};

/** The authorization table as Markdown, one row per operation, from the operation declarations. */
export function renderAccessTable(
  operations: readonly { method: HttpMethod; path: string; summary: string; access: Access }[],
): string {
  const rows = operations.map((op) => {
    const [role, scope] = who(op.access);
    const route = operationKey(op).replace(/:(\w+)/g, '{$1}');
    return `| \`${route}\` | ${role} | ${scope} | ${op.summary.replace(/\|/g, '\\|')} |`;
  });
  return ['| Operation | Least role | API-key scope | What it does |', '|---|---|---|---|', ...rows].join('\n');
}

/** The document with its generated block replaced; throws when the markers are missing. */
export function withAccessTable(document: string, table: string): string {
  const start = document.indexOf(DOC_START);
  const end = document.indexOf(DOC_END);
  if (start < 0 || end < start) throw new Error(`docs/authorization.md lacks the markers ${DOC_START} … ${DOC_END}`);
  return `${document.slice(0, start + DOC_START.length)}\n${table}\n${document.slice(end)}`;
}
