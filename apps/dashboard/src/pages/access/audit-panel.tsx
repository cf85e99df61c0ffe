import { Group, Pagination, Stack, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import type { AuditEntry, Page } from './access-types';
import { AuditFilters, type AuditFilter } from './audit-filters';
import { AuditTable } from './audit-table';

const PER_PAGE = 50;

/** The audit log, newest first, one API page at a time, narrowed by the filters. */
export function AuditPanel() {
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState<AuditFilter>({});
  const [actions, setActions] = useState<string[]>([]);
  const audit = useQuery({
    queryKey: ['audit', page, filter],
    queryFn: async (): Promise<Page & { entries: AuditEntry[] }> =>
      dataOf(client.GET('/api/audit', { params: { query: { ...filter, page, per_page: PER_PAGE } } })),
    placeholderData: keepPreviousData,
  });
  const data = audit.data;
  // Suggestions grow with what has been seen, so a filtered page does not shrink them.
  useEffect(() => {
    if (data) setActions((seen) => [...new Set([...seen, ...data.entries.map((e) => e.action)])].sort());
  }, [data]);
  // While a new filter's page loads the previous page still shows: it is not what the filter matches.
  const filtered = Object.keys(filter).length > 0 && !audit.isPlaceholderData;
  return (
    <Stack>
      <AuditFilters
        filter={filter}
        actions={actions}
        onChange={(next) => {
          setFilter(next);
          setPage(1);
        }}
      />
      <ProblemAlert error={audit.error} />
      {audit.isLoading ? <PageLoader /> : null}
      {data?.entries.length === 0 ? (
        <Text c="dimmed">{filtered ? 'No entries match these filters.' : 'Nothing recorded yet.'}</Text>
      ) : null}
      {data?.entries.length ? <AuditTable entries={data.entries} /> : null}
      {data && data.total > 0 ? (
        <Group justify="space-between">
          <Text size="sm" c="dimmed" data-testid="audit-total">
            {data.total === 1 ? '1 entry' : `${data.total} entries`}
            {filtered ? (data.total === 1 ? ' matches' : ' match') : ''}
          </Text>
          {data.pages > 1 ? <Pagination total={data.pages} value={page} onChange={setPage} /> : null}
        </Group>
      ) : null}
    </Stack>
  );
}
