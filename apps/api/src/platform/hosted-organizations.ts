import { AppError, type OrgId } from '@relay/core';
import type { AuditRepository, HostedOrganization, OperatorRecord, PlatformRepository } from '@relay/db';
import type { z } from 'zod';
import type { PasswordHasher } from '../auth/passwords';
import type { organizationCreateSchema, subscriptionPatchSchema } from '../routes/platform.contract';
import { ingestUrlsOf, type IngestHostSettings } from './ingest-hosts';
import { isoOrNull as iso } from '../http/timestamps';

export interface HostedOrganizationDeps {
  platform: PlatformRepository;
  audit: AuditRepository;
  passwords: PasswordHasher;
  hosts: IngestHostSettings;
}

export function organizationView(o: HostedOrganization) {
  return {
    id: o.id,
    name: o.name,
    slug: o.slug,
    subscriber_name: o.subscriberName,
    billing_contact_name: o.billingContactName,
    billing_contact_email: o.billingContactEmail,
    subscription: {
      plan: o.plan,
      status: o.subscriptionStatus,
      monthly_event_limit: o.monthlyEventLimit,
      current_period_end: iso(o.currentPeriodEnd),
    },
    created_at: o.createdAt.toISOString(),
  };
}

// Platform audit entries name the operator in actor_user_id and metadata; they belong to no organization.
const byOperator = (operator: OperatorRecord) => ({
  actorUserId: operator.id,
  actorEmail: null,
  metadata: { operator: operator.username },
});

export async function createHostedOrganization(
  deps: HostedOrganizationDeps,
  operator: OperatorRecord,
  input: z.output<typeof organizationCreateSchema>,
) {
  if (input.password.toLowerCase().includes(input.username.toLowerCase())) {
    throw new AppError('validation_failed', 'The request is not valid.', {
      errors: [{ field: 'password', message: 'must not contain the username' }],
    });
  }
  const result = await deps.platform.create({
    name: input.name,
    slug: input.slug,
    subscriberName: input.subscriber_name,
    billingContactName: input.billing_contact_name,
    billingContactEmail: input.billing_contact_email,
    admin: { username: input.username, email: input.email, passwordHash: await deps.passwords.hash(input.password) },
  });
  if (result === 'slug_taken') throw new AppError('slug_taken');
  if (result === 'username_taken') throw new AppError('username_taken');
  const { organization, adminId } = result;
  const actor = byOperator(operator);
  await deps.audit.record(null, {
    ...actor,
    action: 'organization.created',
    resourceType: 'organization',
    resourceId: organization.id,
    metadata: { ...actor.metadata, slug: organization.slug, admin_username: input.username },
  });
  await deps.audit.record(organization.id, {
    ...actor,
    action: 'user.created',
    resourceType: 'user',
    resourceId: adminId,
    metadata: { ...actor.metadata, username: input.username, role: 'admin' },
  });
  return {
    organization: organizationView(organization),
    admin: { id: adminId, username: input.username },
    ingest_urls: ingestUrlsOf(deps.hosts, organization, []),
  };
}

export async function updateSubscription(
  deps: HostedOrganizationDeps,
  operator: OperatorRecord,
  id: string,
  patch: z.output<typeof subscriptionPatchSchema>,
) {
  const before = await deps.platform.get(id);
  if (!before) throw new AppError('not_found', 'No such organization.');
  const updated = await deps.platform.updateSubscription(id, {
    ...(patch.plan !== undefined ? { plan: patch.plan } : {}),
    ...(patch.status !== undefined ? { subscriptionStatus: patch.status } : {}),
    ...(patch.monthly_event_limit !== undefined ? { monthlyEventLimit: patch.monthly_event_limit } : {}),
    ...(patch.current_period_end !== undefined
      ? { currentPeriodEnd: patch.current_period_end === null ? null : new Date(patch.current_period_end) }
      : {}),
  });
  if (!updated) throw new AppError('not_found', 'No such organization.');
  const actor = byOperator(operator);
  await deps.audit.record(null, {
    ...actor,
    action: 'subscription.updated',
    resourceType: 'organization',
    resourceId: id,
    metadata: {
      ...actor.metadata,
      from: organizationView(before).subscription,
      to: organizationView(updated).subscription,
    },
  });
  return organizationView(updated);
}

export async function organizationDetail(deps: HostedOrganizationDeps, id: string) {
  const found = await deps.platform.get(id);
  if (!found) throw new AppError('not_found', 'No such organization.');
  const active = found.domains.filter((d) => d.status === 'active').map((d) => d.domain);
  return {
    ...organizationView(found),
    users_by_role: found.usersByRole,
    events: found.events,
    domains: found.domains,
    ingest_urls: ingestUrlsOf(deps.hosts, { id: found.id as OrgId, slug: found.slug }, active),
  };
}
