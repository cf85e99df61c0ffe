import { dataOf, type AnswerOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { formatTable } from '../../output/table';
import { collect, positiveInt, withExamples } from '../command-kit';
import { timeBound } from '../events/events-filters';

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

export interface AuditFlags {
  page: number;
  perPage: number;
  action?: string[];
  actor?: string;
  actorId?: string;
  resourceType?: string;
  resource?: string;
  from?: string;
  to?: string;
}

/** The API's filters from the flags: only what was given; `--action` repeats or takes a comma list. */
export const auditQuery = (f: AuditFlags) => ({
  page: f.page,
  per_page: f.perPage,
  ...(f.action && { action: f.action.join(',') }),
  ...(f.actor !== undefined && { actor_email: f.actor }),
  ...(f.actorId !== undefined && { actor_user_id: f.actorId }),
  ...(f.resourceType !== undefined && { resource_type: f.resourceType }),
  ...(f.resource !== undefined && { resource_id: f.resource }),
  ...(f.from !== undefined && { from: timeBound(f.from) }),
  ...(f.to !== undefined && { to: timeBound(f.to) }),
});

/** The paging and filter flags of an audit log (the organization's and the platform's take the same). */
export function withAuditFilters(cmd: Command, examples: { action: string; resourceType: string }): Command {
  return cmd
    .option('--page <n>', 'which page (from 1)', positiveInt, 1)
    .option('--per-page <n>', 'entries per page (at most 200)', positiveInt, 50)
    .option(
      '--action <action>',
      `only this action, e.g. ${examples.action} (repeat or comma-separate for several)`,
      collect,
    )
    .option('--actor <email>', "only entries whose actor's e-mail is this")
    .option('--actor-id <id>', "only entries of this actor's user id")
    .option('--resource-type <type>', `only entries about this kind of resource, e.g. ${examples.resourceType}`)
    .option('--resource <id>', 'only entries about this resource (its id)')
    .option('--from <when>', 'created at or after: ISO 8601, or a duration ago such as 1h, 2d')
    .option('--to <when>', 'created before: ISO 8601, or a duration ago such as 30m');
}

export function registerAuditCommand(program: Command, ctx: CommandContext): void {
  const audit = program.command('audit').description("The organization's audit log, newest first: who changed what");
  withAuditFilters(audit, { action: 'rule.created', resourceType: 'rule' }).action(
    async (flags: AuditFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const answer = await dataOf(client.GET('/api/audit', { params: { query: auditQuery(flags) } }));
      out.result(answer, (a) => (a.entries.length ? auditTable(a.entries) : 'No audit entries on this page.'));
      if (answer.page < answer.pages)
        out.note(
          `Page ${answer.page} of ${answer.pages} (${answer.total} entries): --page ${answer.page + 1} for more.`,
        );
    },
  );
  withExamples(
    audit,
    'relay audit',
    'relay audit --page 2 --per-page 100',
    'relay audit --action rule.created,rule.deleted --from 2d',
    'relay audit --resource-type rule --resource 0196f2c4-7a1e-7c3b-9d2e-4b8f1a6c2d3e',
    'relay audit --json | jq ".entries[0]"',
  );
}
