import { Code, CopyButton, Button, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';

/** No events yet: the curl that sends a first webhook to this organization's ingest URL. */
export function EventsEmpty({ filtered }: { filtered: boolean }) {
  const endpoint = useQuery({
    queryKey: ['config', 'endpoint'],
    queryFn: () => dataOf(client.GET('/config/endpoint')),
  });
  if (filtered) return <Text c="dimmed">No event matches these filters. Clear a filter to see more.</Text>;
  const url = endpoint.data?.ingest_url;
  const curl = url
    ? `curl -X POST '${url}' -H 'content-type: application/json' -H 'X-Webhook-Source: test' -d '{"hello":"world"}'`
    : null;
  return (
    <Stack gap="xs" data-testid="events-empty">
      <Title order={4}>No events yet</Title>
      {curl ? (
        <>
          <Text>Send a first webhook and it appears here live:</Text>
          <Code block>{curl}</Code>
          <CopyButton value={curl}>
            {({ copied, copy }) => (
              <Button size="xs" variant="light" onClick={copy} w="fit-content">
                {copied ? 'Copied' : 'Copy command'}
              </Button>
            )}
          </CopyButton>
        </>
      ) : (
        <Text c="dimmed">This organization has no ingest URL yet: see Settings and Domains.</Text>
      )}
    </Stack>
  );
}
