import { Badge, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { AnchorLink } from '../../components/links';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { CopyField } from '../settings/copy-field';
import type { OrganizationDetail } from './platform-types';
import { AuditPanel } from '../access/audit-panel';
import { LimitsCard } from './limits-card';
import { OffboardingCard } from './offboarding-card';
import { SubscriptionForm } from './subscription-form';
import { UsageCard } from './usage-card';

/**
 * /app/platform/organizations/$id: one organization's billing details, usage against its quota, limits,
 * subscription, export and deletion, and its entries in the platform audit log.
 */
export function OrganizationDetailPage() {
  const { id = '' } = useParams({ strict: false });
  const org = useQuery({
    queryKey: ['platform', 'organization', id],
    queryFn: async (): Promise<OrganizationDetail> =>
      dataOf(client.GET('/api/platform/organizations/{id}', { params: { path: { id } } })),
  });
  if (org.isPending) return <PageLoader />;
  if (org.error) return <ProblemAlert error={org.error} />;
  const o = org.data;
  return (
    <Stack>
      <AnchorLink to="/platform" size="sm">
        ← Platform
      </AnchorLink>
      <Group>
        <Title order={2}>{o.name}</Title>
        <Badge>{o.subscription.status}</Badge>
      </Group>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Text>Slug: {o.slug}</Text>
          <Text>Subscriber: {o.subscriber_name ?? '—'}</Text>
          <Text>
            Billing contact: {o.billing_contact_name ?? '—'}{' '}
            {o.billing_contact_email ? `<${o.billing_contact_email}>` : ''}
          </Text>
          <Text>
            Users:{' '}
            {Object.entries(o.users_by_role)
              .map(([role, n]) => `${n} ${role}`)
              .join(', ') || 'none'}
          </Text>
          <Text>
            Events: {o.events.queued} queued, {o.events.delivered} delivered, {o.events.failed} failed
          </Text>
        </Card>
        <Card withBorder>
          <Text fw={500}>Ingest URLs</Text>
          {o.ingest_urls.map((url) => (
            <CopyField key={url} value={url} label={url} />
          ))}
          <Text fw={500} mt="sm">
            Domains
          </Text>
          {o.domains.length === 0 ? <Text c="dimmed">None</Text> : null}
          {o.domains.map((d) => (
            <Text key={d.domain}>
              {d.domain} ({d.status})
            </Text>
          ))}
        </Card>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <UsageCard usage={o.usage} />
        <LimitsCard organization={o} />
      </SimpleGrid>
      <Card withBorder>
        <SubscriptionForm key={JSON.stringify(o.subscription)} organizationId={o.id} subscription={o.subscription} />
      </Card>
      <OffboardingCard organization={o} />
      <Card withBorder>
        <Title order={3} mb="sm">
          Platform audit log
        </Title>
        {/* Its platform entries are those about it (created, changed, exported), as the resource. */}
        <AuditPanel key={o.id} log="platform" initialFilter={{ resource_id: o.id }} />
      </Card>
    </Stack>
  );
}
