import { Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { dataOf, type AnswerOf } from '@relay/client';
import { useState } from 'react';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { RelativeTime } from '../../components/relative-time';

type AuditPage = AnswerOf<'/api/audit', 'get'>;

// A JSON document is valid YAML too: the file `relay apply -f` reads either way (docs/config-as-code.md).
function download(document: unknown) {
  const blob = new Blob([`${JSON.stringify(document, null, 2)}\n`], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = Object.assign(window.document.createElement('a'), { href: url, download: 'relay.json' });
  link.click();
  URL.revokeObjectURL(url);
}

const summaryText = (metadata: Record<string, unknown>) => {
  const s = metadata.summary as { create?: number; update?: number; delete?: number } | undefined;
  return s ? `${s.create ?? 0} created, ${s.update ?? 0} changed, ${s.delete ?? 0} deleted` : '';
};

/** Configuration as code: the export `relay apply` takes, and the audit entry of the last apply. */
export function ConfigExportCard() {
  const [error, setError] = useState<unknown>(null);
  const last = useQuery({
    queryKey: ['audit', 'config.applied'],
    queryFn: async (): Promise<AuditPage> =>
      dataOf(client.GET('/api/audit', { params: { query: { action: 'config.applied', page: 1, per_page: 1 } } })),
  });
  const entry = last.data?.entries[0];
  const exportNow = async () => {
    setError(null);
    try {
      download(await dataOf(client.GET('/api/config/export')));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={3}>Configuration as code</Title>
        <Text size="sm">
          Rules, destinations, hooks and the default target as one file for git: apply it with relay apply -f. Secrets
          are never in it, only references.
        </Text>
        <Group>
          <Button variant="default" onClick={() => void exportNow()}>
            Export configuration
          </Button>
        </Group>
        <ProblemAlert error={error ?? last.error} />
        {entry ? (
          <Text size="sm" aria-label="last apply">
            Last apply: <RelativeTime iso={entry.created_at} /> by {entry.actor_email}: {summaryText(entry.metadata)}
          </Text>
        ) : last.data ? (
          <Text size="sm" c="dimmed">
            No configuration applied yet.
          </Text>
        ) : null}
      </Stack>
    </Card>
  );
}
