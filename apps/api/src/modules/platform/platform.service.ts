import { AppError } from '@relay/core';
import type { auditListQuery, organizationCreateSchema, subscriptionPatchSchema } from '@relay/contracts';
import { type OperatorRecord, type Repositories, type SubscriptionPatch } from '@relay/db';
import type { z } from 'zod';
import type { PasswordHasher } from '../../auth/passwords';
import { auditFilter, auditPageView } from '../audit/audit.views';
import type { Quota } from '../limits/quota';
import { usageOf } from '../limits/usage';
import { ingestUrlsOf, type IngestHostSettings } from './ingest-hosts';
import {
  organizationDetailView,
  organizationView,
  overviewView,
  subscriptionView,
  type InstallRateLimits,
} from './platform.views';
import { auditedByOperator, byOperator, noSuchOrganization } from './operator-audit';

export interface PlatformServiceDeps {
  repositories: Pick<Repositories, 'audit' | 'organizations' | 'platform' | 'transaction'>;
  passwords: PasswordHasher;
  hosts: IngestHostSettings;
  /** The monthly quota's usage, shown in the organization detail. */
  quota?: Pick<Quota, 'usage'>;
  /** The install-wide rate limits, shown beside an organization's own (none given: no limits). */
  rateLimits?: InstallRateLimits;
}

const NO_RATE_LIMITS: InstallRateLimits = { ingest: 0, api: 0, windowSeconds: 60 };

type OrganizationInput = z.output<typeof organizationCreateSchema>;
type SubscriptionInput = z.output<typeof subscriptionPatchSchema>;
type Page = { page: number; per_page: number };

function subscriptionPatch(patch: SubscriptionInput): SubscriptionPatch {
  return {
    ...(patch.plan !== undefined ? { plan: patch.plan } : {}),
    ...(patch.status !== undefined ? { subscriptionStatus: patch.status } : {}),
    ...(patch.monthly_event_limit !== undefined ? { monthlyEventLimit: patch.monthly_event_limit } : {}),
    ...(patch.current_period_end !== undefined
      ? { currentPeriodEnd: patch.current_period_end === null ? null : new Date(patch.current_period_end) }
      : {}),
    ...(patch.ingest_rate_limit !== undefined ? { ingestRateLimit: patch.ingest_rate_limit } : {}),
    ...(patch.api_rate_limit !== undefined ? { apiRateLimit: patch.api_rate_limit } : {}),
    ...(patch.retention_days !== undefined ? { retentionDays: patch.retention_days } : {}),
  };
}

// The operator console: every organization, read and managed by platform operators only.
export function createPlatformService(deps: PlatformServiceDeps) {
  const r = deps.repositories;
  return {
    overview: async () => overviewView(await r.platform.overview()),

    async list(query: Page & { search?: string | undefined }) {
      const { organizations, total } = await r.platform.list(query.search, query.page, query.per_page);
      return {
        organizations: organizations.map(organizationView),
        total,
        page: query.page,
        per_page: query.per_page,
        pages: Math.ceil(total / query.per_page),
      };
    },

    async get(id: string) {
      const found = await r.platform.get(id);
      if (!found) throw noSuchOrganization();
      const usage = await usageOf(deps.quota, r, found.id, found);
      return organizationDetailView(found, deps.hosts, usage, deps.rateLimits ?? NO_RATE_LIMITS);
    },

    /** The organization, its first admin and both audit entries (platform and organization) commit together. */
    async create(operator: OperatorRecord, input: OrganizationInput) {
      if (input.password.toLowerCase().includes(input.username.toLowerCase())) {
        throw new AppError('validation_failed', 'The request is not valid.', {
          errors: [{ field: 'password', message: 'must not contain the username' }],
        });
      }
      const passwordHash = await deps.passwords.hash(input.password);
      const { organization, adminId } = await r.transaction(async (tx) => {
        const result = await tx.platform.create({
          name: input.name,
          slug: input.slug,
          subscriberName: input.subscriber_name,
          billingContactName: input.billing_contact_name,
          billingContactEmail: input.billing_contact_email,
          admin: { username: input.username, email: input.email, passwordHash },
        });
        if (result === 'slug_taken' || result === 'username_taken') throw new AppError(result);
        const org = result.organization;
        await auditedByOperator(tx, operator, {
          action: 'organization.created',
          resourceType: 'organization',
          resourceId: org.id,
          metadata: { slug: org.slug, admin_username: input.username },
        });
        await tx.audit.record(
          org.id,
          byOperator(operator, {
            action: 'user.created',
            resourceType: 'user',
            resourceId: result.adminId,
            metadata: { username: input.username, role: 'admin' },
          }),
        );
        return result;
      });
      return {
        organization: organizationView(organization),
        admin: { id: adminId, username: input.username },
        ingest_urls: ingestUrlsOf(deps.hosts, organization, []),
      };
    },

    async updateSubscription(operator: OperatorRecord, id: string, patch: SubscriptionInput) {
      return r.transaction(async (tx) => {
        const before = await tx.platform.get(id);
        if (!before) throw noSuchOrganization();
        const updated = await tx.platform.updateSubscription(id, subscriptionPatch(patch));
        if (!updated) throw noSuchOrganization();
        const fact = { action: 'subscription.updated', resourceType: 'organization', resourceId: id };
        const change = { from: subscriptionView(before), to: subscriptionView(updated) };
        await auditedByOperator(tx, operator, { ...fact, metadata: change });
        return organizationView(updated);
      });
    },

    /** The platform-level audit log (entries of no organization), newest first, narrowed as the organization log. */
    async auditPage(query: z.output<typeof auditListQuery>) {
      const result = await r.audit.page(null, query.page, query.per_page, auditFilter(query));
      return auditPageView(result, query.page, query.per_page);
    },
  };
}
