import { Button, Group } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ConfirmButton } from '../../components/confirm-button';
import { ProblemAlert } from '../../components/problem-alert';
import type { EventDetail } from './event-types';

/** Retry, acknowledge and delete one event; nothing for a caller who may not write. */
export function EventActions({ event }: { event: EventDetail }) {
  const { me, canWrite } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['events'] });
  const retry = useMutation({
    mutationFn: () => dataOf(client.POST('/events/{id}/retry', { params: { path: { id: event.id } } })),
    onSuccess: async () => {
      notifications.show({ message: 'Retry queued.' });
      await refresh();
    },
  });
  const ack = useMutation({
    mutationFn: () => dataOf(client.POST('/events/{id}/ack', { params: { path: { id: event.id } } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => dataOf(client.DELETE('/events/{id}', { params: { path: { id: event.id } } })),
    onSuccess: async () => {
      notifications.show({ message: 'Event deleted.' });
      queryClient.removeQueries({ queryKey: ['events', event.id] });
      await navigate({ to: '/events' });
    },
  });
  if (!canWrite) return null;
  const can = (scope: string) => me.scopes.includes(scope);
  return (
    <div>
      <Group gap="sm">
        {/* A paused event waits for its rule: resuming the rule releases it, a retry is refused (409). */}
        {can('webhooks:send') && event.status !== 'queued' && event.status !== 'paused' ? (
          <Button onClick={() => retry.mutate()} loading={retry.isPending}>
            Retry
          </Button>
        ) : null}
        {event.status === 'failed' && !event.acknowledged ? (
          <Button variant="default" onClick={() => ack.mutate()} loading={ack.isPending}>
            Acknowledge
          </Button>
        ) : null}
        {can('organization:manage') ? (
          <ConfirmButton
            message="Delete this event and its attempts? This cannot be undone."
            confirmLabel="Delete"
            onConfirm={() => remove.mutate()}
          >
            Delete
          </ConfirmButton>
        ) : null}
      </Group>
      <ProblemAlert error={retry.error ?? ack.error ?? remove.error} />
    </div>
  );
}
