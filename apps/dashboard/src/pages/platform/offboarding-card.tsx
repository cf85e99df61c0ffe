import { Anchor, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { apiPath } from '../../app/api-client';
import { DeleteOrganization } from './delete-organization';
import type { OrganizationDetail } from './platform-types';

/** bull-board's read-only queue view, served by the api beside the dashboard, for operators' sessions only. */
export const QUEUE_VIEW_URL = '/admin/queues';

/**
 * The export is a plain link: the api streams NDJSON as an attachment, so the browser writes it to disk as it comes
 * (fetching it into memory first would hold an organization's whole history in the tab).
 */
const exportUrl = (id: string) =>
  apiPath('/api/platform/organizations/{id}/export').replace('{id}', encodeURIComponent(id));

/** Offboarding: the organization's events as a file, and its deletion. */
export function OffboardingCard({ organization }: { organization: OrganizationDetail }) {
  const activeDomains = organization.domains.filter((d) => d.status === 'active').map((d) => d.domain);
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={3}>Export and delete</Title>
        <Text size="sm" c="dimmed">
          The export holds every event, oldest first, one JSON object per line (sender credentials masked); it is
          recorded in the platform audit log. Jobs of every organization are in the{' '}
          <Anchor href={QUEUE_VIEW_URL} target="_blank" rel="noopener" underline="always">
            queue view
          </Anchor>
          .
        </Text>
        <Group>
          <Button
            component="a"
            href={exportUrl(organization.id)}
            download={`organization-${organization.slug}.ndjson`}
            variant="light"
            leftSection={<IconDownload size={16} />}
          >
            Export events
          </Button>
          <DeleteOrganization organization={organization} activeDomains={activeDomains} />
        </Group>
      </Stack>
    </Card>
  );
}
