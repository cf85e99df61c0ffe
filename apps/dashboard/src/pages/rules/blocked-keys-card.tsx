import { Card, Stack, Table, Text } from '@mantine/core';
import { dataOf } from '@relay/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ConfirmButton } from '../../components/confirm-button';
import { AnchorLink } from '../../components/links';
import { ProblemAlert } from '../../components/problem-alert';
import type { Rule } from './rule-types';

/** How long ago, coarsely: the age of a block is what matters, not its second. */
function age(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/**
 * Ordered delivery (docs/rules.md): the keys of an ordered rule that a failing event holds up, with how long and
 * how many events wait behind it. Shown only for a rule with `ordering`.
 */
export function BlockedKeysCard({ rule }: { rule: Rule }) {
  const { canWrite } = useSession();
  const queryClient = useQueryClient();
  // Acknowledging a retrying head gives up on it: it fails (reason `acknowledged`) and its key moves on.
  const skip = useMutation({
    mutationFn: (eventId: string) => dataOf(client.POST('/events/{id}/ack', { params: { path: { id: eventId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['rules', rule.id, 'ordering'] }),
  });
  const blocked = useQuery({
    queryKey: ['rules', rule.id, 'ordering'],
    queryFn: async () => dataOf(client.GET('/rules/{id}/ordering', { params: { path: { id: rule.id } } })),
    enabled: rule.ordering !== null,
    refetchInterval: 15_000,
  });
  if (rule.ordering === null) return null;
  const keys = blocked.data?.blocked_keys ?? [];
  return (
    <Card withBorder aria-label="Blocked keys">
      <Stack gap="xs">
        <Text fw={600}>Blocked keys</Text>
        <ProblemAlert error={blocked.error ?? skip.error} />
        {blocked.data && keys.length === 0 ? (
          <Text size="sm" c="dimmed">
            No blocked keys: every ordering key is flowing.
          </Text>
        ) : null}
        {keys.length > 0 ? (
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Key</Table.Th>
                <Table.Th>Failing event</Table.Th>
                <Table.Th>Attempts</Table.Th>
                <Table.Th>Blocked for</Table.Th>
                <Table.Th>Waiting</Table.Th>
                {canWrite ? <Table.Th /> : null}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {keys.map((k) => (
                <Table.Tr key={k.key}>
                  <Table.Td>{k.key === '' ? '(whole source)' : k.key}</Table.Td>
                  <Table.Td>
                    <AnchorLink to="/events/$id" params={{ id: k.event_id }}>
                      {k.event_id.slice(0, 8)}
                    </AnchorLink>{' '}
                    {k.status === 'paused' ? '(paused)' : null}
                  </Table.Td>
                  <Table.Td>{k.attempts}</Table.Td>
                  <Table.Td title={new Date(k.blocked_since).toLocaleString()}>{age(k.blocked_since)}</Table.Td>
                  <Table.Td>{k.waiting}</Table.Td>
                  {canWrite ? (
                    <Table.Td>
                      {k.status === 'queued' ? (
                        <ConfirmButton
                          size="xs"
                          message="Give up on this event? It fails (acknowledged) and the events behind it are sent."
                          confirmLabel="Give up"
                          onConfirm={() => skip.mutate(k.event_id)}
                        >
                          Give up
                        </ConfirmButton>
                      ) : null}
                    </Table.Td>
                  ) : null}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : null}
      </Stack>
    </Card>
  );
}
