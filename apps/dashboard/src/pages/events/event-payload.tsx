import { Button, Code, CopyButton, Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import type { EventDetail } from './event-types';

/** Pretty JSON when the stored bytes parse as JSON, else the text exactly as stored. */
export function prettyBody(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/** The payload from `GET /events/{id}/body` (the exact stored bytes), the detail's parsed payload meanwhile. */
export function EventPayload({ event }: { event: EventDetail }) {
  const body = useQuery({
    queryKey: ['events', event.id, 'body'],
    // The exact stored bytes as text, whatever their content type.
    queryFn: () => dataOf(client.GET('/events/{id}/body', { params: { path: { id: event.id } }, parseAs: 'text' })),
    retry: false,
  });
  const raw = body.data ?? (event.payload_as_text ? String(event.payload) : JSON.stringify(event.payload));
  return (
    <div>
      <Group justify="space-between" mb="xs">
        <Text fw={600}>Payload</Text>
        <CopyButton value={raw}>
          {({ copied, copy }) => (
            <Button size="xs" variant="light" onClick={copy}>
              {copied ? 'Copied' : 'Copy raw body'}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Code block data-testid="payload" style={{ maxHeight: 480, overflow: 'auto' }}>
        {prettyBody(raw)}
      </Code>
    </div>
  );
}
