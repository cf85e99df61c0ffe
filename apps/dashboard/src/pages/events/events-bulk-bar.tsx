import { Group, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { ConfirmButton } from '../../components/confirm-button';
import { ProblemAlert } from '../../components/problem-alert';
import { apiFilterOf, hasFilter, type EventsSearch } from './events-search';

interface Props {
  selected: string[];
  search: EventsSearch;
  total: number;
  canRetry: boolean;
  canDelete: boolean;
  onDone: () => void;
}

type Action = 'retry' | 'delete';

/** Bulk retry/delete of the selected rows or, with none selected, of every event the filters match. */
export function EventsBulkBar({ selected, search, total, canRetry, canDelete, onDone }: Props) {
  const queryClient = useQueryClient();
  const bulk = useMutation({
    mutationFn: (action: Action) => {
      // Fields left undefined are left out of the JSON body.
      const filter = apiFilterOf(search);
      // An empty filter means "every event": the API wants that said explicitly.
      const body =
        selected.length > 0 ? { ids: selected } : hasFilter(search) ? { filter } : { filter, all: true as const };
      return dataOf(client.POST(action === 'retry' ? '/events/bulk/retry' : '/events/bulk/delete', { body }));
    },
    onSuccess: async (result, action) => {
      const more = result.truncated ? ' (more remain: run it again)' : '';
      notifications.show({
        message: `${action === 'retry' ? 'Retried' : 'Deleted'} ${result.affected} events${more}.`,
      });
      onDone();
      await queryClient.invalidateQueries({ queryKey: ['events'] });
    },
  });
  if (!canRetry && !canDelete) return null;
  const target =
    selected.length > 0
      ? `${selected.length} selected events`
      : hasFilter(search)
        ? `all ${total} matching events`
        : `all ${total} events`;
  return (
    <Group gap="sm">
      <Text size="sm" c="dimmed">
        {selected.length > 0 ? `${selected.length} selected` : 'No row selected: actions apply to the filter'}
      </Text>
      {canRetry ? (
        <ConfirmButton
          color="blue"
          message={`Retry ${target}?`}
          confirmLabel="Retry"
          onConfirm={() => bulk.mutate('retry')}
          disabled={total === 0}
          loading={bulk.isPending}
        >
          Retry {selected.length > 0 ? 'selected' : 'all'}
        </ConfirmButton>
      ) : null}
      {canDelete ? (
        <ConfirmButton
          message={`Delete ${target}? This cannot be undone.`}
          confirmLabel="Delete"
          onConfirm={() => bulk.mutate('delete')}
          disabled={total === 0}
          loading={bulk.isPending}
        >
          Delete {selected.length > 0 ? 'selected' : 'all'}
        </ConfirmButton>
      ) : null}
      <ProblemAlert error={bulk.error} />
    </Group>
  );
}
