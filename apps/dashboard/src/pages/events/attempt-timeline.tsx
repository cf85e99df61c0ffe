import { Badge, Code, Group, Text, Timeline } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { RelativeTime } from '../../components/relative-time';
import type { Attempt } from './event-types';

const ok = (a: Attempt) => a.response_status !== null && a.response_status >= 200 && a.response_status < 300;

/**
 * The primary target's delivery attempts and the hook attempts, oldest first, and when the next retry is due. A
 * destination's attempts show with its delivery (event-deliveries.tsx).
 */
interface Props {
  eventId: string;
  nextAttemptAt: string | null;
  /** The event's status: each change (a run settling) reloads the attempts. */
  status: string;
}

export function AttemptTimeline({ eventId, nextAttemptAt, status }: Props) {
  const attempts = useQuery({
    queryKey: ['events', eventId, 'attempts', status, nextAttemptAt],
    queryFn: async (): Promise<{ attempts: Attempt[] }> =>
      dataOf(client.GET('/events/{id}/attempts', { params: { path: { id: eventId } } })),
  });
  const list = (attempts.data?.attempts ?? []).filter((a) => a.destination_id === null);
  return (
    <div data-testid="attempts">
      <Text fw={600} mb="xs">
        Attempts
      </Text>
      <ProblemAlert error={attempts.error} />
      {attempts.data && list.length === 0 ? <Text c="dimmed">No delivery attempt yet.</Text> : null}
      <Timeline bulletSize={18} lineWidth={2}>
        {list.map((a) => (
          <Timeline.Item
            key={a.id}
            color={ok(a) ? 'green' : 'red'}
            title={`#${a.attempt_number} ${a.kind === 'hook' ? 'hook' : 'delivery'} → ${a.target_url}`}
          >
            <Group gap="xs">
              <Badge color={ok(a) ? 'green' : 'red'} variant="light">
                {a.response_status ?? 'no response'}
              </Badge>
              <Text size="sm">{a.duration_ms} ms</Text>
              <Text size="sm" c="dimmed">
                <RelativeTime iso={a.finished_at} />
              </Text>
            </Group>
            {a.error ? (
              <Text size="sm" c="red">
                {a.error}
              </Text>
            ) : null}
            {a.response_body ? (
              <Code block mt={4}>
                {a.response_body.slice(0, 500)}
              </Code>
            ) : null}
          </Timeline.Item>
        ))}
      </Timeline>
      {nextAttemptAt ? (
        <Text size="sm" mt="xs">
          Next retry <RelativeTime iso={nextAttemptAt} />
        </Text>
      ) : null}
    </div>
  );
}
