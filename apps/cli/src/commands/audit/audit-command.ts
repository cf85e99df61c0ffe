import { dataOf, type AnswerOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { formatTable } from '../../output/table';
import { positiveInt, withExamples } from '../command-kit';

type Entry = AnswerOf<'/api/audit', 'get'>['entries'][number];

/** Metadata in one short line ("changed=target_url,active"), enough to tell entries apart in a table. */
const valueText = (value: unknown): string =>
  Array.isArray(value)
    ? value.map(valueText).join(',')
    : typeof value === 'string'
      ? value
      : (JSON.stringify(value) ?? String(value));
const metadataText = (metadata: Record<string, unknown>) =>
  Object.entries(metadata)
    .map(([key, value]) => `${key}=${valueText(value)}`)
    .join(' ');

export const auditTable = (entries: readonly Entry[]) =>
  formatTable(entries, [
    { header: 'time', value: (e) => e.created_at },
    { header: 'actor', value: (e) => e.actor_email, maxWidth: 32 },
    { header: 'action', value: (e) => e.action },
    { header: 'resource', value: (e) => `${e.resource_type} ${e.resource_id}` },
    { header: 'details', value: (e) => metadataText(e.metadata), maxWidth: 50 },
  ]);

export function registerAuditCommand(program: Command, ctx: CommandContext): void {
  const audit = program
    .command('audit')
    .description("The organization's audit log, newest first: who changed what")
    .option('--page <n>', 'which page (from 1)', positiveInt, 1)
    .option('--per-page <n>', 'entries per page (at most 200)', positiveInt, 50)
    .action(async (flags: { page: number; perPage: number }, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const answer = await dataOf(
        client.GET('/api/audit', { params: { query: { page: flags.page, per_page: flags.perPage } } }),
      );
      out.result(answer, (a) => (a.entries.length ? auditTable(a.entries) : 'No audit entries on this page.'));
      if (answer.page < answer.pages)
        out.note(
          `Page ${answer.page} of ${answer.pages} (${answer.total} entries): --page ${answer.page + 1} for more.`,
        );
    });
  withExamples(audit, 'relay audit', 'relay audit --page 2 --per-page 100', 'relay audit --json | jq ".entries[0]"');
}
