import { Card, Group, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ProblemAlert } from '../../components/problem-alert';
import { AnchorLink } from '../../components/links';
import { RelativeTime } from '../../components/relative-time';
import { needsAttentionQuery } from '../events/needs-attention-query';

/** Failed events nobody acknowledged yet: the ten newest, with a link to all of them. */
export function NeedsAttention({ count }: { count: number }) {
  const list = useQuery(needsAttentionQuery);
  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Title order={4}>Needs attention ({count})</Title>
        <AnchorLink to="/events" search={{ needs_attention: true }}>
          Show all
        </AnchorLink>
      </Group>
      <ProblemAlert error={list.error} />
      {list.data?.events.length === 0 ? <Text c="dimmed">Nothing failed that needs a look.</Text> : null}
      <Table>
        <Table.Tbody>
          {list.data?.events.map((e) => (
            <Table.Tr key={e.id}>
              <Table.Td>
                <AnchorLink to="/events/$id" params={{ id: e.id }}>
                  {e.source}
                </AnchorLink>
              </Table.Td>
              <Table.Td>{e.failure_reason ?? 'failed'}</Table.Td>
              <Table.Td>
                <RelativeTime iso={e.created_at} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}
