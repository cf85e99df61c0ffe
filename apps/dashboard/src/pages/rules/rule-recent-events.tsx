import { Card, Group, Table, Text, Title } from '@mantine/core';
import { dataOf } from '@relay/client';
import { useQuery } from '@tanstack/react-query';
import { client } from '../../app/api-client';
import { AnchorLink } from '../../components/links';
import { ProblemAlert } from '../../components/problem-alert';
import { RelativeTime } from '../../components/relative-time';
import { StatusBadge } from '../../components/status-badge';

/** How many of a rule's events its page shows; the link under them opens the rest in the events list. */
export const RECENT_EVENTS = 10;

/** A rule's newest events (GET /events?rule_id=), each linking to its page, and a link to all of them. */
export function RuleRecentEvents({ ruleId }: { ruleId: string }) {
  const events = useQuery({
    queryKey: ['events', 'rule', ruleId],
    queryFn: async () =>
      dataOf(client.GET('/events', { params: { query: { rule_id: ruleId, per_page: RECENT_EVENTS } } })),
  });
  const list = events.data?.events ?? [];
  return (
    <Card withBorder component="section" aria-label="Recent events">
      <Group justify="space-between" mb="xs">
        <Title order={3}>Recent events</Title>
        <AnchorLink to="/events" search={{ rule_id: ruleId }} size="sm">
          {events.data ? `All ${events.data.total.toLocaleString()} events of this rule` : 'All events of this rule'}
        </AnchorLink>
      </Group>
      <ProblemAlert error={events.error} />
      {events.data && list.length === 0 ? <Text c="dimmed">No events routed by this rule yet.</Text> : null}
      {list.length ? (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Received</Table.Th>
              <Table.Th>Event</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Reason</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((event) => (
              <Table.Tr key={event.id}>
                <Table.Td>
                  <RelativeTime iso={event.created_at} />
                </Table.Td>
                <Table.Td>
                  {/* Event ids are UUIDv7: their head is the time (shared by events of the same moment), their
                      tail tells them apart. */}
                  <AnchorLink
                    to="/events/$id"
                    params={{ id: event.id }}
                    ff="monospace"
                    size="sm"
                    title={event.id}
                    aria-label={`Event ${event.id}`}
                  >
                    …{event.id.slice(-12)}
                  </AnchorLink>
                </Table.Td>
                <Table.Td>
                  <StatusBadge status={event.status} acknowledged={event.acknowledged} />
                </Table.Td>
                <Table.Td>{event.attempt_count}</Table.Td>
                <Table.Td>{event.failure_reason ?? ''}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
    </Card>
  );
}
