import { Card, Table, Title } from '@mantine/core';
import { AnchorLink } from '../../components/links';
import { EVENT_STATUSES } from '../events/events-search';
import type { BucketCounts } from './status-chart';

type SourceCounts = Omit<BucketCounts, 'start'> & { source: string };

/** The window's ten busiest sources, every count a link to those events. */
export function BusiestSources({ sources, from, to }: { sources: SourceCounts[]; from: string; to: string }) {
  if (sources.length === 0) return null;
  return (
    <Card withBorder>
      <Title order={4} mb="sm">
        Busiest sources
      </Title>
      <Table aria-label="Busiest sources">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Source</Table.Th>
            <Table.Th ta="right">Events</Table.Th>
            {EVENT_STATUSES.map((status) => (
              <Table.Th key={status} ta="right">
                {status}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sources.slice(0, 10).map((s) => (
            <Table.Tr key={s.source}>
              <Table.Td>{s.source}</Table.Td>
              <Table.Td ta="right">
                <AnchorLink to="/events" search={{ source: s.source, from, to }}>
                  {s.total}
                </AnchorLink>
              </Table.Td>
              {EVENT_STATUSES.map((status) => (
                <Table.Td key={status} ta="right">
                  {s[status] === 0 ? (
                    <span>0</span>
                  ) : (
                    <AnchorLink
                      to="/events"
                      search={{ source: s.source, status, from, to }}
                      aria-label={`${s[status]} ${status} from ${s.source}`}
                    >
                      {s[status]}
                    </AnchorLink>
                  )}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}
