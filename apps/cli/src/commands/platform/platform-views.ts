import type { AnswerOf } from '@relay/client';
import type { Colors } from '../../output/colors';
import { formatTable } from '../../output/table';
import { formatFields } from '../admin-kit';
import { ago } from '../command-kit';

type HostedOrganization = AnswerOf<'/api/platform/organizations', 'get'>['organizations'][number];
type Detail = AnswerOf<'/api/platform/organizations/{id}', 'get'>;
type Overview = AnswerOf<'/api/platform/overview', 'get'>;

const counts = (record: Record<string, number>) =>
  Object.entries(record)
    .map(([key, n]) => `${key} ${n}`)
    .join(', ') || '-';

const statusText = (colors: Colors, status: string) =>
  status === 'active'
    ? colors.green(status)
    : ['suspended', 'canceled'].includes(status)
      ? colors.red(status)
      : colors.yellow(status);

export const organizationsTable = (orgs: readonly HostedOrganization[], colors: Colors) =>
  orgs.length === 0
    ? 'No organizations.'
    : formatTable(orgs, [
        { header: 'id', value: (o) => o.id },
        { header: 'slug', value: (o) => o.slug },
        { header: 'name', value: (o) => o.name, maxWidth: 30 },
        { header: 'plan', value: (o) => o.subscription.plan },
        { header: 'status', value: (o) => statusText(colors, o.subscription.status) },
        { header: 'created', value: (o) => ago(o.created_at) },
      ]);

export function subscriptionFields(org: HostedOrganization, colors: Colors): [string, string][] {
  const s = org.subscription;
  return [
    ['plan', s.plan],
    ['status', statusText(colors, s.status)],
    ['event limit', s.monthly_event_limit === null ? 'unlimited' : `${s.monthly_event_limit} a month`],
    ['period ends', s.current_period_end ?? '-'],
    ['ingest rate limit', s.ingest_rate_limit === null ? 'install default' : `${s.ingest_rate_limit} a window`],
    ['API rate limit', s.api_rate_limit === null ? 'install default' : `${s.api_rate_limit} a window per credential`],
    ['retention', s.retention_days === null ? 'install default' : `${s.retention_days} days`],
  ];
}

export const organizationDetail = (org: Detail, colors: Colors) =>
  formatFields([
    ['id', org.id],
    ['slug', org.slug],
    ['name', org.name],
    ['subscriber', org.subscriber_name ?? '-'],
    ['billing', org.billing_contact_name ? `${org.billing_contact_name} <${org.billing_contact_email ?? ''}>` : '-'],
    ...subscriptionFields(org, colors),
    ['users', counts(org.users_by_role)],
    ['events', counts(org.events)],
    ['domains', org.domains.map((d) => `${d.domain} (${d.status})`).join(', ') || '-'],
    ['ingest URLs', org.ingest_urls.join(', ') || '-'],
    ['created', org.created_at],
  ]);

export const overviewText = (o: Overview) =>
  formatFields([
    ['organizations', `${o.organizations} (${counts(o.organizations_by_subscription)})`],
    ['users', String(o.users)],
    ['events', counts(o.events)],
    ['attempts', counts(o.attempts)],
  ]);
