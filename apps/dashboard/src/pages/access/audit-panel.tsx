import { Code, Group, Pagination, Stack, Table, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import type { AuditEntry, Page } from './access-types';

const PER_PAGE = 50;

/** The audit log, newest first, one API page at a time. */
export function AuditPanel() {
  const [page, setPage] = useState(1);
  const audit = useQuery({
    queryKey: ['audit', page],
    queryFn: async (): Promise<Page & { entries: AuditEntry[] }> =>
      dataOf(client.GET('/api/audit', { params: { query: { page, per_page: PER_PAGE } } })),
    placeholderData: keepPreviousData,
  });
  const data = audit.data;
  return (
    <Stack>
      <ProblemAlert error={audit.error} />
      {audit.isLoading ? <PageLoader /> : null}
      {data?.entries.length === 0 ? <Text c="dimmed">Nothing recorded yet.</Text> : null}
      {data?.entries.length ? (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>When</Table.Th>
              <Table.Th>Actor</Table.Th>
              <Table.Th>Action</Table.Th>
              <Table.Th>Resource</Table.Th>
              <Table.Th>Metadata</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.entries.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{new Date(`${e.created_at.replace(/Z?$/, 'Z')}`).toLocaleString()}</Table.Td>
                <Table.Td>{e.actor_email}</Table.Td>
                <Table.Td>{e.action}</Table.Td>
                <Table.Td>
                  {e.resource_type}{' '}
                  <Text span size="xs" c="dimmed">
                    {e.resource_id}
                  </Text>
                </Table.Td>
                <Table.Td>{Object.keys(e.metadata).length ? <Code>{JSON.stringify(e.metadata)}</Code> : null}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {data && data.pages > 1 ? (
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            {data.total} entries
          </Text>
          <Pagination total={data.pages} value={page} onChange={setPage} />
        </Group>
      ) : null}
    </Stack>
  );
}
