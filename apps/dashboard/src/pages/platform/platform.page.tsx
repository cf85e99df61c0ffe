import {
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  Pagination,
  SimpleGrid,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { AnchorLink } from '../../components/links';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { AuditPanel } from '../access/audit-panel';
import { QUEUE_VIEW_URL } from './offboarding-card';
import { OrganizationForm } from './organization-form';
import type { OrganizationPage, PlatformOverview } from './platform-types';

const PER_PAGE = 50;

function Stat({ label, value }: { label: string; value: number | undefined }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} size="xl">
        {value ?? '—'}
      </Text>
    </Card>
  );
}

/**
 * /app/platform: the operator console — counts across organizations, the organizations themselves, the platform
 * audit log, and a way to the queue view.
 */
export function PlatformPage() {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const overview = useQuery({
    queryKey: ['platform', 'overview'],
    queryFn: async (): Promise<PlatformOverview> => dataOf(client.GET('/api/platform/overview')),
  });
  const orgs = useQuery({
    queryKey: ['platform', 'organizations', debounced, page],
    queryFn: async (): Promise<OrganizationPage> =>
      dataOf(
        client.GET('/api/platform/organizations', {
          params: { query: { page, per_page: PER_PAGE, ...(debounced ? { search: debounced } : {}) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const o = overview.data;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Platform</Title>
        <Group>
          {/* Served by the api, not the dashboard: a page of its own (read-only, operators' sessions only). */}
          <Anchor href={QUEUE_VIEW_URL} target="_blank" rel="noopener">
            Queue view
          </Anchor>
          <Button onClick={() => setCreating(true)}>New organization</Button>
        </Group>
      </Group>
      <ProblemAlert error={overview.error ?? orgs.error} />
      <SimpleGrid cols={{ base: 2, md: 5 }}>
        <Stat label="Organizations" value={o?.organizations} />
        <Stat label="Users" value={o?.users} />
        <Stat label="Queued events" value={o?.events.queued} />
        <Stat label="Delivered events" value={o?.events.delivered} />
        <Stat label="Failed events" value={o?.events.failed} />
      </SimpleGrid>
      {o ? (
        <Group gap="xs">
          {Object.entries(o.organizations_by_subscription).map(([status, count]) => (
            <Badge key={status} variant="light">
              {status}: {count}
            </Badge>
          ))}
        </Group>
      ) : null}
      <Tabs defaultValue="organizations" keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="organizations">Organizations</Tabs.Tab>
          <Tabs.Tab value="audit">Audit log</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="organizations">
          <Stack>
            <TextInput
              label="Search organizations"
              placeholder="Name or slug"
              value={search}
              onChange={(e) => {
                setSearch(e.currentTarget.value);
                setPage(1);
              }}
            />
            {orgs.isLoading ? <PageLoader /> : null}
            {orgs.data?.organizations.length === 0 ? <Text c="dimmed">No organizations match.</Text> : null}
            {orgs.data?.organizations.length ? (
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Slug</Table.Th>
                    <Table.Th>Plan</Table.Th>
                    <Table.Th>Status</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {orgs.data.organizations.map((org) => (
                    <Table.Tr key={org.id}>
                      <Table.Td>
                        <AnchorLink to="/platform/organizations/$id" params={{ id: org.id }}>
                          {org.name}
                        </AnchorLink>
                      </Table.Td>
                      <Table.Td>{org.slug}</Table.Td>
                      <Table.Td>{org.subscription.plan}</Table.Td>
                      <Table.Td>
                        <Badge variant="light">{org.subscription.status}</Badge>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            ) : null}
            {orgs.data && orgs.data.pages > 1 ? (
              <Group justify="space-between">
                <Text size="sm" c="dimmed">
                  {orgs.data.total} organizations
                </Text>
                <Pagination total={orgs.data.pages} value={page} onChange={setPage} />
              </Group>
            ) : null}
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="audit">
          <AuditPanel log="platform" />
        </Tabs.Panel>
      </Tabs>
      {creating ? <OrganizationForm onClose={() => setCreating(false)} /> : null}
    </Stack>
  );
}
