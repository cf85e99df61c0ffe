import { Alert, Button, Code, Group, NativeSelect, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { dataOf, type AnswerOf } from '@relay/client';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import type { Rule } from './rule-types';

// The transform as typed, tried on one of the rule's recent webhooks (POST /rules/{id}/transform-test): the
// webhook as received beside the request the transform returns, or its error with the line, and what it logged.
// Nothing is sent to a target.

type TestResult = AnswerOf<'/rules/{id}/transform-test', 'post'>;
type TestRequest = Extract<TestResult, { ok: true }>['request'];

/** How many of the rule's latest webhooks are offered. */
const RECENT = 20;

const json = (value: unknown) => JSON.stringify(value, null, 2);

function RequestView({ title, request, label }: { title: string; request: TestRequest; label: string }) {
  return (
    <Stack gap={4} aria-label={label} miw={0}>
      <Title order={6}>{title}</Title>
      <Text size="xs" c="dimmed">
        Path
      </Text>
      <Code block>{request.path || '(none)'}</Code>
      <Text size="xs" c="dimmed">
        Query
      </Text>
      <Code block>{json(request.query)}</Code>
      <Text size="xs" c="dimmed">
        Headers
      </Text>
      <Code block style={{ maxHeight: 200, overflow: 'auto' }}>
        {json(request.headers)}
      </Code>
      <Text size="xs" c="dimmed">
        Body
      </Text>
      <Code block style={{ maxHeight: 320, overflow: 'auto' }} data-testid={`${label}-body`}>
        {typeof request.body === 'string' ? request.body : json(request.body)}
      </Code>
    </Stack>
  );
}

interface Props {
  rule: Rule;
  /** A saved destination: `context.destination_id` in the call. */
  destinationId?: string | undefined;
  code: string;
}

export function TransformTestPanel({ rule, destinationId, code }: Props) {
  const recent = useQuery({
    queryKey: ['events', 'recent', rule.source],
    queryFn: async () =>
      dataOf(client.GET('/events', { params: { query: { source: rule.source, per_page: RECENT } } })),
  });
  // A source is one rule's; an event kept from a former rule of that source is not offered.
  const events = (recent.data?.events ?? []).filter((e) => e.provider_id === rule.id);
  const [eventId, setEventId] = useState('');
  const first = events[0]?.id ?? '';
  useEffect(() => {
    if (!eventId && first) setEventId(first);
  }, [eventId, first]);
  const input = useQuery({
    queryKey: ['events', eventId],
    queryFn: async () => dataOf(client.GET('/events/{id}', { params: { path: { id: eventId } } })),
    enabled: eventId !== '',
  });
  const run = useMutation({
    mutationFn: async (): Promise<TestResult> =>
      dataOf(
        client.POST('/rules/{id}/transform-test', {
          params: { path: { id: rule.id } },
          body: { transform: code, event_id: eventId, ...(destinationId ? { destination_id: destinationId } : {}) },
        }),
      ),
  });

  if (recent.data && events.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No stored webhooks of this rule to test on yet.
      </Text>
    );
  const result = run.data;
  return (
    <Stack gap="xs" aria-label="Transform test">
      <Group align="flex-end">
        <NativeSelect
          label="Test on webhook"
          style={{ flex: 1 }}
          data={events.map((e) => ({
            value: e.id,
            label: `${new Date(e.created_at).toLocaleString()} · ${e.status} · ${e.id.slice(0, 8)}`,
          }))}
          value={eventId}
          onChange={(e) => {
            setEventId(e.currentTarget.value);
            run.reset();
          }}
        />
        <Button
          variant="default"
          onClick={() => run.mutate()}
          loading={run.isPending}
          disabled={!eventId || code.trim() === ''}
        >
          Run test
        </Button>
      </Group>
      <ProblemAlert error={recent.error ?? input.error ?? run.error} />
      {result && !result.ok ? (
        <Alert color="red" title="The transform failed" aria-label="Transform error">
          {result.error.line === undefined ? '' : `Line ${result.error.line}: `}
          {result.error.message} ({result.error.cause})
        </Alert>
      ) : null}
      {result && input.data ? (
        <SimpleGrid cols={result.ok ? 2 : 1}>
          <RequestView
            title="Input: the webhook as received"
            request={{ ...input.data, body: input.data.payload }}
            label="input"
          />
          {result.ok ? (
            <RequestView title="Output: what would be sent" request={result.request} label="output" />
          ) : null}
        </SimpleGrid>
      ) : null}
      {result ? (
        <Stack gap={4}>
          <Text size="xs" c="dimmed">
            Logs
          </Text>
          <Code block aria-label="Transform logs">
            {result.logs || '(no console output)'}
          </Code>
        </Stack>
      ) : null}
    </Stack>
  );
}
