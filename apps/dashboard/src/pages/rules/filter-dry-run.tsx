import { Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { dataOf } from '@relay/client';
import { useQuery } from '@tanstack/react-query';
import { ApiError, client } from '../../app/api-client';
import type { RoutingFilter } from './filter-draft';

/** How long typing pauses before the filter is tried: one request per pause, not per key. */
const DRY_RUN_DELAY_MS = 400;

interface Props {
  ruleId: string;
  /** A saved destination whose filter is being edited: the typed filter is tried for it. */
  destinationId?: string | undefined;
  filter: RoutingFilter;
}

/**
 * The filter being typed, tried on the rule's last 50 stored webhooks (POST /rules/{id}/dry-run), as "would have
 * matched 12 of the last 50". Read only; a refused filter says nothing here (its error shows on the field).
 */
export function FilterDryRun({ ruleId, destinationId, filter }: Props) {
  const text = JSON.stringify(filter);
  const [settled] = useDebouncedValue(text, DRY_RUN_DELAY_MS);
  const run = useQuery({
    queryKey: ['rules', ruleId, 'dry-run', destinationId ?? null, settled],
    queryFn: async () =>
      dataOf(
        client.POST('/rules/{id}/dry-run', {
          params: { path: { id: ruleId } },
          body: {
            filter: JSON.parse(settled) as RoutingFilter,
            ...(destinationId ? { destination_id: destinationId } : {}),
          },
        }),
      ),
    enabled: settled === text,
    retry: false,
    staleTime: 30_000,
  });
  if (run.error instanceof ApiError && run.error.problem.status === 400)
    return (
      <Text size="sm" c="red" aria-live="polite">
        Not a valid filter yet: {run.error.problem.errors?.[0]?.message ?? run.error.problem.detail}
      </Text>
    );
  if (!run.data) return null;
  const tried = run.data.matched + run.data.not_matched;
  return (
    <Text size="sm" c="dimmed" aria-live="polite" aria-label="Dry run">
      {tried === 0
        ? 'No stored webhooks of this rule to try it on yet.'
        : `Would have matched ${run.data.matched} of the last ${tried} webhooks.`}
    </Text>
  );
}
