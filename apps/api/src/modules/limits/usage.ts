import type { OrgId } from '@relay/core';
import type { OrganizationRepository } from '@relay/db';
import { billingPeriodAt } from './billing-period';
import type { Quota } from './quota';

type UsageLimits = { monthlyEventLimit: number | null; currentPeriodEnd: Date | null };

/** The organization's usage of its billing period: the quota's count when there is a quota service, else the database's. */
export async function usageOf(
  quota: Pick<Quota, 'usage'> | undefined,
  repositories: { organizations: Pick<OrganizationRepository, 'eventsCreatedBetween'> },
  orgId: OrgId,
  limits: UsageLimits,
) {
  if (quota) return quota.usage(orgId, limits);
  const period = billingPeriodAt(new Date(), limits.currentPeriodEnd);
  return {
    events_this_period: await repositories.organizations.eventsCreatedBetween(orgId, period.start, period.end),
    monthly_event_limit: limits.monthlyEventLimit,
    period_start: period.start.toISOString(),
    period_end: period.end.toISOString(),
  };
}
