import { Alert, Badge, Button, Card, Group, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { dataOf } from '@relay/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import type { Rule } from './rule-types';

const plural = (n: number) => `${n.toLocaleString()} paused event${n === 1 ? '' : 's'}`;

const REASONS = {
  gone: 'The target answered 410 Gone.',
  failing: 'Every delivery attempt failed for longer than the rule allows, with no success.',
} as const;

/**
 * Endpoint health (docs/rules.md): an unhealthy rule's events wait as `paused`; an admin resumes the rule once
 * the target is fixed, and its paused events are delivered again.
 */
export function RuleHealthCard({ rule, canWrite }: { rule: Rule; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const resume = useMutation({
    mutationFn: async () => dataOf(client.POST('/rules/{id}/resume', { params: { path: { id: rule.id } } })),
    onSuccess: async ({ resumed_events: n }) => {
      notifications.show({ message: `Resumed: ${n} paused event${n === 1 ? '' : 's'} queued again.` });
      await queryClient.invalidateQueries({ queryKey: ['rules'] });
      await queryClient.invalidateQueries({ queryKey: ['events', 'paused-count', rule.id] });
    },
  });
  const { health } = rule;
  const unhealthy = health.status === 'unhealthy';
  // What resume would deliver: the rule's paused events, those resume releases (only the total is read, one row).
  const paused = useQuery({
    queryKey: ['events', 'paused-count', rule.id],
    queryFn: async () =>
      dataOf(client.GET('/events', { params: { query: { status: 'paused', rule_id: rule.id, per_page: 1 } } })),
    enabled: unhealthy,
  });
  const pausedTotal = paused.data?.total;
  const pausedText =
    pausedTotal === undefined ? null : `${paused.data?.total_exact === false ? 'about ' : ''}${plural(pausedTotal)}`;
  return (
    <Card withBorder aria-label="Endpoint health">
      <Stack gap="xs">
        <Group>
          <Text fw={600}>Endpoint health</Text>
          <Badge color={unhealthy ? 'red' : 'green'}>{health.status}</Badge>
        </Group>
        {unhealthy ? (
          <Alert color="red" title="Deliveries are paused">
            {health.reason ? REASONS[health.reason] : null} Unhealthy since{' '}
            {health.since ? new Date(health.since).toLocaleString() : '—'}. New events wait as paused until the rule is
            resumed.
            {pausedText ? ` Waiting now: ${pausedText}.` : null}
          </Alert>
        ) : null}
        {!unhealthy && health.failing_since ? (
          <Text size="sm" c="dimmed">
            Failing since {new Date(health.failing_since).toLocaleString()} (no success since).
          </Text>
        ) : null}
        <ProblemAlert error={resume.error} />
        {unhealthy && canWrite ? (
          <Group>
            <Button color="green" onClick={() => resume.mutate()} loading={resume.isPending}>
              {pausedText ? `Resume and deliver ${pausedText}` : 'Resume'}
            </Button>
          </Group>
        ) : null}
      </Stack>
    </Card>
  );
}
