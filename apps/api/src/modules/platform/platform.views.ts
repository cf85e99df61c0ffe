import type { HostedOrganization, PlatformRepository } from '@relay/db';
import { isoOrNull } from '../../http/timestamps';
import type { usageOf } from '../limits/usage';
import { ingestUrlsOf, type IngestHostSettings } from './ingest-hosts';

type Overview = Awaited<ReturnType<PlatformRepository['overview']>>;
type Detail = NonNullable<Awaited<ReturnType<PlatformRepository['get']>>>;
type Usage = Awaited<ReturnType<typeof usageOf>>;

/** The install-wide rate limits (INGEST_RATE_LIMIT, API_RATE_LIMIT; 0: off) and their window. */
export interface InstallRateLimits {
  ingest: number;
  api: number;
  windowSeconds: number;
  /** RETENTION_DAYS as the api is given it (0: events kept forever), the same as the worker's. */
  retentionDays?: number;
}

// As the ingest gate and the API limiter read them: the organization's own, else the install's; 0 is no limit.
const inEffect = (own: number | null, install: number) => {
  const limit = own ?? install;
  return limit === 0 ? null : limit;
};

export const subscriptionView = (o: HostedOrganization) => ({
  plan: o.plan,
  status: o.subscriptionStatus,
  monthly_event_limit: o.monthlyEventLimit,
  current_period_end: isoOrNull(o.currentPeriodEnd),
  ingest_rate_limit: o.ingestRateLimit,
  api_rate_limit: o.apiRateLimit,
  retention_days: o.retentionDays,
});

export function organizationView(o: HostedOrganization) {
  return {
    id: o.id,
    name: o.name,
    slug: o.slug,
    subscriber_name: o.subscriberName,
    billing_contact_name: o.billingContactName,
    billing_contact_email: o.billingContactEmail,
    subscription: subscriptionView(o),
    created_at: o.createdAt.toISOString(),
  };
}

export function organizationDetailView(o: Detail, hosts: IngestHostSettings, usage: Usage, rates: InstallRateLimits) {
  const active = o.domains.filter((d) => d.status === 'active').map((d) => d.domain);
  return {
    ...organizationView(o),
    users_by_role: o.usersByRole,
    events: o.events,
    domains: o.domains,
    ingest_urls: ingestUrlsOf(hosts, { id: o.id, slug: o.slug }, active),
    usage,
    rate_limits_in_effect: {
      window_seconds: rates.windowSeconds,
      ingest_rate_limit: inEffect(o.ingestRateLimit, rates.ingest),
      api_rate_limit: inEffect(o.apiRateLimit, rates.api),
    },
    // As retention reads it: the organization's own (0 included) wins over the install's, also while that is unset.
    retention_days_in_effect: inEffect(o.retentionDays, rates.retentionDays ?? 0),
  };
}

export const overviewView = (o: Overview) => ({
  organizations: o.organizations,
  organizations_by_subscription: o.organizationsBySubscription,
  users: o.users,
  events: o.events,
  attempts: o.attempts,
});
