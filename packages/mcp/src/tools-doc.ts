import { accessOf } from '@relay/client';
import type { AnyRelayTool } from './tool-kit';

const START = '<!-- tools:start -->';
const END = '<!-- tools:end -->';

const hintsOf = (tool: AnyRelayTool) =>
  (['readOnlyHint', 'destructiveHint', 'idempotentHint'] as const)
    .filter((hint) => tool.annotations[hint])
    .map((hint) => hint.replace('Hint', ''))
    .join(', ');

// The first sentence: the table stays a summary; clients show the whole description.
// A sentence ends at ". " before a capital letter, not inside "e.g. " or "i.e. ".
const firstSentence = (text: string) => text.split(/(?<!\b(?:e\.g|i\.e))(?<=\.)\s(?=[A-Z`])/)[0] ?? text;

/** The role and scope columns: the tool's operation's row of the generated access map. */
function accessColumns(tool: AnyRelayTool): string {
  const access = accessOf(tool.operation);
  if (access === 'public') return 'any | -';
  return `${access.role} | ${access.scope === null ? '-' : `\`${access.scope}\``}`;
}

/** The tools table of docs/mcp.md: name, what it does, its REST operation, the role and scope it needs, its hints. */
export function renderToolsTable(tools: readonly AnyRelayTool[]): string {
  const rows = tools.map(
    (t) =>
      `| \`${t.name}\` | ${firstSentence(t.description).replace(/\|/g, '\\|')} | \`${t.operation}\` | ${accessColumns(t)} | ` +
      `${hintsOf(t) || '-'} |`,
  );
  return ['| Tool | What it does | Operation | Role | Scope | Hints |', '|---|---|---|---|---|---|', ...rows].join(
    '\n',
  );
}

/** The document with the table between its markers replaced. */
export function withToolsTable(doc: string, table: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start === -1 || end < start) throw new Error(`the document has no ${START} … ${END} markers`);
  return `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`;
}
