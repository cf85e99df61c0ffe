import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { UsageError } from '../../errors';
import { formatFields, oneOf, type BodyOf } from '../admin-kit';
import { auditQuery, auditTable, withAuditFilters, type AuditFlags } from '../audit/audit-command';
import { withExamples } from '../command-kit';
import { registerPlatformOrgsCommands } from './platform-orgs-commands';
import { overviewText, subscriptionFields } from './platform-views';

const STATUSES = ['trialing', 'active', 'past_due', 'suspended', 'canceled'] as const;

interface SubscriptionFlags {
  plan?: string;
  status?: (typeof STATUSES)[number];
  eventLimit?: string;
  periodEnd?: string;
  ingestRateLimit?: string;
  apiRateLimit?: string;
  retentionDays?: string;
}

/** A positive whole number, or "default" for the install-wide setting (null). */
function overrideOf(flag: string, value: string): number | null {
  if (value === 'default') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} takes a whole number from 1 or "default", got "${value}"`);
  return n;
}

function subscriptionBody(flags: SubscriptionFlags): BodyOf<'patchApiPlatformOrganizationsIdSubscription'> {
  const body: BodyOf<'patchApiPlatformOrganizationsIdSubscription'> = {};
  if (flags.plan !== undefined) body.plan = flags.plan;
  if (flags.status !== undefined) body.status = flags.status;
  if (flags.eventLimit !== undefined) {
    const limit = flags.eventLimit === 'unlimited' ? null : Number(flags.eventLimit);
    if (limit !== null && (!Number.isInteger(limit) || limit < 0))
      throw new UsageError(`--event-limit takes a whole number or "unlimited", got "${flags.eventLimit}"`);
    body.monthly_event_limit = limit;
  }
  if (flags.periodEnd !== undefined) body.current_period_end = flags.periodEnd === 'none' ? null : flags.periodEnd;
  if (flags.ingestRateLimit !== undefined)
    body.ingest_rate_limit = overrideOf('--ingest-rate-limit', flags.ingestRateLimit);
  if (flags.apiRateLimit !== undefined) body.api_rate_limit = overrideOf('--api-rate-limit', flags.apiRateLimit);
  if (flags.retentionDays !== undefined) body.retention_days = overrideOf('--retention-days', flags.retentionDays);
  return body;
}

function registerSubscription(platform: Command, ctx: CommandContext) {
  const subscription = platform
    .command('subscription <org-id>')
    .description("Show an organization's subscription, or change it with the options")
    .option('--plan <plan>', 'the plan name')
    .option('--status <status>', STATUSES.join(', '), oneOf(STATUSES, '--status'))
    .option('--event-limit <n>', 'events a month, or "unlimited"')
    .option('--period-end <iso>', 'when the current period ends (ISO 8601 with a zone), or "none"')
    .option('--ingest-rate-limit <n>', 'webhooks a rate-limit window for the organization, or "default"')
    .option('--api-rate-limit <n>', 'API requests a rate-limit window per credential, or "default"')
    .option('--retention-days <n>', 'days events are kept, or "default"')
    .action(async (id: string, flags: SubscriptionFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const body = subscriptionBody(flags);
      const { client } = await ctx.connect(cmd);
      const path = { params: { path: { id } } };
      if (Object.keys(body).length === 0) {
        const org = await dataOf(client.GET('/api/platform/organizations/{id}', path));
        out.result(org.subscription, () => formatFields(subscriptionFields(org, out.colors)));
        return;
      }
      const org = await dataOf(client.PATCH('/api/platform/organizations/{id}/subscription', { ...path, body }));
      out.result(
        org,
        (o) => `Updated the subscription of ${o.slug}.\n${formatFields(subscriptionFields(o, out.colors))}`,
      );
    });
  withExamples(
    subscription,
    'relay platform subscription 0192f0c4-…',
    'relay platform subscription 0192f0c4-… --status suspended',
    'relay platform subscription 0192f0c4-… --plan pro --event-limit 1000000 --period-end 2027-01-01T00:00:00Z',
  );
}

export function registerPlatformCommands(program: Command, ctx: CommandContext): void {
  const platform = program
    .command('platform')
    .description('For platform operators (log in as one): every hosted organization');
  withExamples(platform, 'relay platform overview', 'relay platform orgs list');

  const overview = platform
    .command('overview')
    .description('Counts across every organization')
    .action(async (_: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      out.result(await dataOf(client.GET('/api/platform/overview')), overviewText);
    });
  withExamples(overview, 'relay platform overview', 'relay platform overview --json');

  registerPlatformOrgsCommands(platform, ctx);
  registerSubscription(platform, ctx);

  const audit = platform
    .command('audit')
    .description("Platform-level audit entries (operators' acts), newest first, with the filters of `relay audit`");
  withAuditFilters(audit, { action: 'organization.deleted', resourceType: 'organization' }).action(
    async (flags: AuditFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const answer = await dataOf(client.GET('/api/platform/audit', { params: { query: auditQuery(flags) } }));
      out.result(answer, (a) => (a.entries.length ? auditTable(a.entries) : 'No audit entries on this page.'));
    },
  );
  withExamples(
    audit,
    'relay platform audit',
    'relay platform audit --per-page 200 --json',
    'relay platform audit --action organization.exported,organization.deleted --from 7d',
    'relay platform audit --resource 0196f2c4-7a1e-7c3b-9d2e-4b8f1a6c2d3e',
  );
}
