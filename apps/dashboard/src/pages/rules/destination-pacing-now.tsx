import { Text } from '@mantine/core';
import { dataOf } from '@relay/client';
import { useQuery } from '@tanstack/react-query';
import { client } from '../../app/api-client';
import type { Destination } from './destination-types';
import { pacingStateText, pacingSummary } from './transform-pacing-draft';

// A paced destination's pacing state under its badges. The list does not carry it (each read asks Redis), so
// only destinations with pacing set are read one by one, and again every 10 s while the page is open.
export function DestinationPacingNow({ destination }: { destination: Destination }) {
  const paced = pacingSummary(destination) !== '';
  const params = { path: { id: destination.rule_id, destinationId: destination.id } };
  const read = useQuery({
    queryKey: ['rules', destination.rule_id, 'destinations', destination.id],
    queryFn: async () => dataOf(client.GET('/rules/{id}/destinations/{destinationId}', { params })),
    enabled: paced,
    refetchInterval: 10_000,
  });
  if (!paced || !read.data) return null;
  return (
    <Text size="xs" c="dimmed">
      now: {pacingStateText(read.data.pacing_state)}
    </Text>
  );
}
