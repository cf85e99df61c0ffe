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

type Log = 'organization' | 'platform';
type AuditPage = Page & { entries: AuditEntry[] };

// Both logs take the same filters and answer the same envelope: the organization's own, and the platform operators'.
const fetchPage = async (log: Log, query: AuditFilter & { page: number; per_page: number }): Promise<AuditPage> =>
  log === 'platform'
    ? dataOf(client.GET('/api/platform/audit', { params: { query } }))
    : dataOf(client.GET('/api/audit', { params: { query } }));

const PLATFORM_EXAMPLES = { action: 'organization.deleted', resourceType: 'organization' };

interface Props {
  /** Which log: the organization's (`GET /api/audit`, default) or the platform's (`GET /api/platform/audit`). */
  log?: Log;
  /** Filters in effect from the start (one organization's platform entries), still editable. */
  initialFilter?: AuditFilter;
}

/** An audit log, newest first, one API page at a time, narrowed by the filters. */
export function AuditPanel({ log = 'organization', initialFilter = {} }: Props) {
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState<AuditFilter>(initialFilter);
  const [actions, setActions] = useState<string[]>([]);
  const audit = useQuery({
    queryKey: [log === 'platform' ? 'platform-audit' : 'audit', page, filter],
    queryFn: () => fetchPage(log, { ...filter, page, per_page: PER_PAGE }),
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
        examples={log === 'platform' ? PLATFORM_EXAMPLES : undefined}
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
