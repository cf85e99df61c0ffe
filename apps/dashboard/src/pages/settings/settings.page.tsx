import { Card, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ProblemAlert } from '../../components/problem-alert';
import { ConfigExportCard } from './config-export-card';
import { CopyField } from './copy-field';
import { DefaultTargetCard } from './default-target-card';
import { NotificationsCard } from './notifications-card';
import type { Endpoint, Organization } from './settings-types';

/** /app/settings: where to send webhooks, where they go without a rule, notifications, the organization. */
export function SettingsPage() {
  const { canWrite } = useSession();
  const endpoint = useQuery({
    queryKey: ['config', 'endpoint'],
    queryFn: async (): Promise<Endpoint> => dataOf(client.GET('/config/endpoint')),
  });
  const organization = useQuery({
    queryKey: ['organization'],
    queryFn: async (): Promise<Organization> => dataOf(client.GET('/api/organization')),
  });
  const e = endpoint.data;
  return (
    <Stack>
      <Title order={2}>Settings</Title>
      <Card withBorder>
        <Stack gap="xs">
          <Title order={3}>Ingest URLs</Title>
          <ProblemAlert error={endpoint.error} />
          {e && !e.ingest_url ? (
            <Text c="dimmed">
              No URL accepts this organization&apos;s webhooks (no host, or the subscription is blocked).
            </Text>
          ) : null}
          {e?.ingest_url ? (
            <>
              <Text size="sm">POST webhooks here (source from the X-Webhook-Source header):</Text>
              <CopyField value={e.ingest_url} label="ingest URL" />
            </>
          ) : null}
          {e?.source_url_template ? (
            <>
              <Text size="sm">Or with the source as the first path segment:</Text>
              <CopyField value={e.source_url_template} label="source URL template" />
            </>
          ) : null}
          {e && e.ingest_urls.length > 1 ? (
            <Text size="sm">Every host that receives this organization&apos;s webhooks:</Text>
          ) : null}
          {e && e.ingest_urls.length > 1
            ? e.ingest_urls.map((url) => <CopyField key={url} value={url} label={url} />)
            : null}
          {e?.reserved_sources.length ? (
            <Text size="xs" c="dimmed">
              Reserved (not usable as a source): {e.reserved_sources.join(', ')}
            </Text>
          ) : null}
        </Stack>
      </Card>
      <DefaultTargetCard canWrite={canWrite} />
      {canWrite ? <NotificationsCard /> : null}
      {canWrite ? <ConfigExportCard /> : null}
      <Card withBorder>
        <Title order={3}>Organization</Title>
        <ProblemAlert error={organization.error} />
        {organization.data ? (
          <Stack gap={4} mt="xs">
            <Text>Name: {organization.data.name}</Text>
            <Text>Slug: {organization.data.slug}</Text>
            <Text size="sm" c="dimmed">
              Id: {organization.data.id}
            </Text>
          </Stack>
        ) : null}
      </Card>
    </Stack>
  );
}
