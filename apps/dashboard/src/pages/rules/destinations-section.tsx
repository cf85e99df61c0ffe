import { Badge, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { dataOf } from '@relay/client';
import { IconPlus } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ConfirmButton } from '../../components/confirm-button';
import { deliveryCountsText } from '../../components/delivery-counts';
import { AnchorLink } from '../../components/links';
import { ProblemAlert } from '../../components/problem-alert';
import { DestinationForm } from './destination-form';
import { DestinationPacingNow } from './destination-pacing-now';
import type { Destination, DestinationStats } from './destination-types';
import { filterSummary } from './filter-draft';
import type { Rule } from './rule-types';
import { TargetBadges } from './target-badges';

/** GET /stats lists the busiest destinations only: one missing from a full list may still have deliveries. */
const STATS_LISTED = 100;

const HEALTH_REASONS = { gone: 'its target answered 410 Gone', failing: 'failing with no success too long' } as const;

function Health({ destination, onResume }: { destination: Destination; onResume?: (() => void) | undefined }) {
  const { health } = destination;
  if (health.status === 'healthy') return <Badge color="green">healthy</Badge>;
  return (
    <Stack gap={4} align="flex-start">
      <Badge color="red">unhealthy</Badge>
      <Text size="xs" c="dimmed">
        {health.reason ? HEALTH_REASONS[health.reason] : null}
        {health.since ? `, since ${new Date(health.since).toLocaleString()}` : ''}; deliveries wait as paused
      </Text>
      {onResume ? (
        <Button size="xs" color="green" onClick={onResume}>
          Resume
        </Button>
      ) : null}
    </Stack>
  );
}

function Counts({ destination, stats }: { destination: Destination; stats: DestinationStats[] | undefined }) {
  if (!stats) return null;
  const counts = stats.find((s) => s.destination_id === destination.id);
  if (!counts) return <Text size="sm">{stats.length < STATS_LISTED ? 'none' : '—'}</Text>;
  const text = deliveryCountsText(counts) || 'none';
  return counts.failed > 0 ? (
    <AnchorLink to="/events" search={{ destination_id: destination.id, delivery_status: 'failed' }} size="sm">
      {text}
    </AnchorLink>
  ) : (
    <Text size="sm">{text}</Text>
  );
}

/**
 * The rule's destinations (docs/routing.md): further targets, each with its own filter and health, and their
 * deliveries of the last 24 hours. Admins add, edit, resume and delete them; viewers see the list.
 */
export function DestinationsSection({ rule }: { rule: Rule }) {
  const { can } = useSession();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Destination | 'new' | null>(null);
  const params = { path: { id: rule.id } };
  const destinations = useQuery({
    queryKey: ['rules', rule.id, 'destinations'],
    queryFn: async () => dataOf(client.GET('/rules/{id}/destinations', { params })),
    enabled: can('GET /rules/{id}/destinations'),
  });
  // The default window: the last 24 hours.
  const stats = useQuery({
    queryKey: ['stats', 'by-destination'],
    queryFn: async () => dataOf(client.GET('/stats')),
    enabled: can('GET /stats'),
    staleTime: 30_000,
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: ['rules', rule.id, 'destinations'] });
  const remove = useMutation({
    mutationFn: async (destinationId: string) =>
      dataOf(
        client.DELETE('/rules/{id}/destinations/{destinationId}', { params: { path: { id: rule.id, destinationId } } }),
      ),
    onSuccess: invalidate,
  });
  const resume = useMutation({
    mutationFn: async (destinationId: string) =>
      dataOf(
        client.POST('/rules/{id}/destinations/{destinationId}/resume', {
          params: { path: { id: rule.id, destinationId } },
        }),
      ),
    onSuccess: async ({ destination, resumed_deliveries: n }) => {
      notifications.show({
        message: `${destination.name} resumed: ${n} paused deliver${n === 1 ? 'y' : 'ies'} queued.`,
      });
      await invalidate();
    },
  });
  const canAdd = can('POST /rules/{id}/destinations');
  const canEdit = can('PATCH /rules/{id}/destinations/{destinationId}');
  const canDelete = can('DELETE /rules/{id}/destinations/{destinationId}');
  const canResume = can('POST /rules/{id}/destinations/{destinationId}/resume');
  const list = destinations.data?.destinations;

  return (
    <Stack aria-label="Destinations" component="section">
      <Group justify="space-between">
        <Title order={3}>Destinations</Title>
        {canAdd ? (
          <Button leftSection={<IconPlus size={16} />} variant="default" onClick={() => setEditing('new')}>
            Add destination
          </Button>
        ) : null}
      </Group>
      <ProblemAlert error={destinations.error ?? remove.error ?? resume.error} />
      {list?.length === 0 ? <Text c="dimmed">No destinations: webhooks go to the rule&apos;s target only.</Text> : null}
      {list?.length ? (
        <Table data-testid="destinations">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Target</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Health</Table.Th>
              <Table.Th>Filter</Table.Th>
              <Table.Th>Transform, pacing</Table.Th>
              {stats.data ? <Table.Th>Deliveries (24 h)</Table.Th> : null}
              {canEdit || canDelete ? <Table.Th>Actions</Table.Th> : null}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((d) => (
              <Table.Tr key={d.id}>
                <Table.Td>{d.name}</Table.Td>
                <Table.Td>{d.target_url}</Table.Td>
                <Table.Td>
                  <Badge color={d.active ? 'green' : 'gray'}>{d.active ? 'active' : 'inactive'}</Badge>
                </Table.Td>
                <Table.Td>
                  <Health destination={d} onResume={canResume ? () => resume.mutate(d.id) : undefined} />
                </Table.Td>
                <Table.Td maw={280}>
                  <Text size="sm" ff={d.filter ? 'monospace' : undefined} lineClamp={2}>
                    {d.filter ? filterSummary(d.filter) : 'every webhook'}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <TargetBadges target={d} none="—" />
                  <DestinationPacingNow destination={d} />
                </Table.Td>
                {stats.data ? (
                  <Table.Td>
                    <Counts destination={d} stats={stats.data.by_destination} />
                  </Table.Td>
                ) : null}
                {canEdit || canDelete ? (
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      {canEdit ? (
                        <Button size="xs" variant="default" onClick={() => setEditing(d)}>
                          Edit
                        </Button>
                      ) : null}
                      {canDelete ? (
                        <ConfirmButton
                          size="xs"
                          message={`Delete the destination ${d.name} (to ${d.target_url}) with its deliveries? This cannot be undone.`}
                          confirmLabel="Delete"
                          onConfirm={() => remove.mutate(d.id)}
                        >
                          Delete
                        </ConfirmButton>
                      ) : null}
                    </Group>
                  </Table.Td>
                ) : null}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {editing ? (
        <DestinationForm
          rule={rule}
          destination={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(null)}
        />
      ) : null}
    </Stack>
  );
}
