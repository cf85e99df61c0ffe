import { Badge, Button, Card, Group, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { dataOf } from '@relay/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ProblemAlert } from '../../components/problem-alert';
import { RelativeTime } from '../../components/relative-time';
import { StatusBadge } from '../../components/status-badge';
import type { Attempt, EventDetail } from './event-types';

type Delivery = EventDetail['deliveries'][number];

/** Whether this delivery's action is in flight (not another row's). */
const pending = (action: { isPending: boolean; variables: Delivery | undefined }, d: Delivery) =>
  action.isPending && action.variables?.id === d.id;

const ok = (a: Attempt) => a.response_status !== null && a.response_status >= 200 && a.response_status < 300;

/** One delivery's attempts, oldest first, on one line each. */
function DeliveryAttempts({ attempts, delivery }: { attempts: Attempt[] | undefined; delivery: Delivery }) {
  if (!attempts) return null;
  return (
    <Stack gap={2} data-testid="delivery-attempts">
      {attempts.length === 0 ? (
        <Text size="sm" c="dimmed">
          No attempt yet.
        </Text>
      ) : null}
      {attempts.map((a) => (
        <Group key={a.id} gap="xs" wrap="nowrap">
          <Text size="sm">#{a.attempt_number}</Text>
          <Badge color={ok(a) ? 'green' : 'red'} variant="light">
            {a.response_status ?? 'no response'}
          </Badge>
          <Text size="sm">{a.duration_ms} ms</Text>
          <Text size="sm" c="dimmed">
            <RelativeTime iso={a.finished_at} />
          </Text>
          {a.error ? (
            <Text size="sm" c="red" lineClamp={1}>
              {a.error}
            </Text>
          ) : null}
        </Group>
      ))}
      {delivery.next_attempt_at ? (
        <Text size="sm">
          Next retry <RelativeTime iso={delivery.next_attempt_at} />
        </Text>
      ) : null}
    </Stack>
  );
}

/**
 * The event's deliveries to the rule's destinations (docs/routing.md), one row each with its attempts, apart from
 * the primary target's timeline: each is retried (a new run) or acknowledged on its own, never the event itself.
 */
export function EventDeliveries({ event }: { event: EventDetail }) {
  const { can } = useSession();
  const queryClient = useQueryClient();
  const ruleId = event.provider_id;
  // The destinations' names (the deliveries carry only ids and targets); the rule page shares this cache entry.
  const destinations = useQuery({
    queryKey: ['rules', ruleId, 'destinations'],
    queryFn: async () => dataOf(client.GET('/rules/{id}/destinations', { params: { path: { id: ruleId ?? '' } } })),
    enabled: ruleId !== null && can('GET /rules/{id}/destinations'),
  });
  // Reloaded whenever a delivery moves on (its status or attempt count changes).
  const progress = event.deliveries.map((d) => `${d.status}:${d.attempt_count}`).join();
  const attempts = useQuery({
    queryKey: ['events', event.id, 'attempts', 'deliveries', progress],
    queryFn: async () => dataOf(client.GET('/events/{id}/attempts', { params: { path: { id: event.id } } })),
  });
  const params = { path: { id: event.id } };
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['events'] });
  const retry = useMutation({
    mutationFn: async (d: Delivery) =>
      dataOf(client.POST('/events/{id}/retry', { params, body: { destination_id: d.destination_id } })),
    onSuccess: async () => {
      notifications.show({ message: 'Delivery retry queued.' });
      await refresh();
    },
  });
  const ack = useMutation({
    mutationFn: async (d: Delivery) =>
      dataOf(client.POST('/events/{id}/ack', { params, body: { destination_id: d.destination_id } })),
    onSuccess: refresh,
  });

  if (event.deliveries.length === 0) return null;
  const nameOf = (d: Delivery) => destinations.data?.destinations.find((x) => x.id === d.destination_id)?.name;
  const canRetry = can('POST /events/{id}/retry');
  const canAck = can('POST /events/{id}/ack');
  return (
    <Card withBorder data-testid="deliveries">
      <Text fw={600} mb="xs">
        Deliveries to destinations
      </Text>
      <ProblemAlert error={attempts.error ?? retry.error ?? ack.error} />
      <Table verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Destination</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Attempts</Table.Th>
            <Table.Th>Reason</Table.Th>
            <Table.Th>Last error</Table.Th>
            <Table.Th>Delivered</Table.Th>
            {canRetry || canAck ? <Table.Th>Actions</Table.Th> : null}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {event.deliveries.map((d) => {
            const name = nameOf(d);
            return (
              <Table.Tr key={d.id} data-testid="delivery">
                <Table.Td>
                  {name ? <Text size="sm">{name}</Text> : null}
                  <Text size="xs" c="dimmed">
                    {d.target_url}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <StatusBadge status={d.status} acknowledged={d.acknowledged} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{d.attempt_count}</Text>
                  <DeliveryAttempts
                    delivery={d}
                    attempts={attempts.data?.attempts.filter((a) => a.destination_id === d.destination_id)}
                  />
                </Table.Td>
                <Table.Td>{d.failure_reason ?? ''}</Table.Td>
                <Table.Td>
                  <Text size="sm" lineClamp={2}>
                    {d.last_error ?? ''}
                  </Text>
                </Table.Td>
                <Table.Td>{d.delivered_at ? <RelativeTime iso={d.delivered_at} /> : null}</Table.Td>
                {canRetry || canAck ? (
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      {/* A queued delivery is under way; a paused one waits for its destination's resume. */}
                      {canRetry && (d.status === 'failed' || d.status === 'delivered') ? (
                        <Button size="xs" onClick={() => retry.mutate(d)} loading={pending(retry, d)}>
                          Retry
                        </Button>
                      ) : null}
                      {canAck && d.status === 'failed' && !d.acknowledged ? (
                        <Button size="xs" variant="default" onClick={() => ack.mutate(d)} loading={pending(ack, d)}>
                          Acknowledge
                        </Button>
                      ) : null}
                    </Group>
                  </Table.Td>
                ) : null}
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Card>
  );
}
