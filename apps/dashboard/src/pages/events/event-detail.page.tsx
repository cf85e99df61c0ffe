import { Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { AnchorLink } from '../../components/links';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { RelativeTime } from '../../components/relative-time';
import { StatusBadge } from '../../components/status-badge';
import { AttemptTimeline } from './attempt-timeline';
import { EventActions } from './event-actions';
import { EventDeliveries } from './event-deliveries';
import { EventPayload } from './event-payload';
import type { EventDetail } from './event-types';

const route = getRouteApi('/authed/events/$id');
const POLL_MS = 1_000;

/** One event: status, payload, stored headers, the attempt timeline, its destination deliveries and the actions. */
export function EventDetailPage() {
  const { id } = route.useParams();
  const event = useQuery({
    queryKey: ['events', id],
    queryFn: async (): Promise<EventDetail> => dataOf(client.GET('/events/{id}', { params: { path: { id } } })),
    // While a delivery run is under way (the primary's or a destination's) the page follows it; a settled event
    // does not change by itself.
    refetchInterval: ({ state: { data } }) =>
      data && (data.status === 'queued' || data.deliveries.some((d) => d.status === 'queued')) ? POLL_MS : false,
  });
  const e = event.data;
  return (
    <Stack>
      <AnchorLink to="/events" size="sm">
        ← Events
      </AnchorLink>
      <ProblemAlert error={event.error} />
      {event.isPending ? <PageLoader /> : null}
      {e ? (
        <>
          <Group justify="space-between">
            <Group>
              <Title order={2}>{e.source}</Title>
              <StatusBadge status={e.status} acknowledged={e.acknowledged} />
            </Group>
            <EventActions event={e} />
          </Group>
          <Text size="sm" c="dimmed">
            {e.id} · received <RelativeTime iso={e.created_at} />
            {e.target_url ? ` · to ${e.target_url}` : ''}
            {e.last_error ? ` · last error: ${e.last_error}` : ''}
          </Text>
          <SimpleGrid cols={{ base: 1, lg: 2 }}>
            <Card withBorder>
              <EventPayload event={e} />
            </Card>
            <Card withBorder>
              <AttemptTimeline eventId={e.id} nextAttemptAt={e.next_attempt_at} status={e.status} />
            </Card>
          </SimpleGrid>
          <EventDeliveries event={e} />
          <Card withBorder>
            <Text fw={600} mb="xs">
              Headers
            </Text>
            <Table data-testid="headers">
              <Table.Tbody>
                {Object.entries(e.headers).map(([name, value]) => (
                  <Table.Tr key={name}>
                    <Table.Td ff="monospace">{name}</Table.Td>
                    <Table.Td ff="monospace">{value}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Card>
        </>
      ) : null}
    </Stack>
  );
}
