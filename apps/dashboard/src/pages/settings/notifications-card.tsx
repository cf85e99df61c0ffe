import { Button, Card, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from '../rules/field-error';
import type { NotificationSettings } from './settings-types';

const KEY = ['organization', 'notifications'];

/**
 * Where the organization's notices go (rule.unhealthy, destination.unhealthy, the events.failed digest); admins
 * only, like the API.
 * The secret is write-only: the field replaces it, empty keeps it.
 */
export function NotificationsCard() {
  const queryClient = useQueryClient();
  const state = useQuery({
    queryKey: KEY,
    queryFn: async (): Promise<NotificationSettings> => dataOf(client.GET('/api/organization/notifications')),
  });
  const [url, setUrl] = useState<string>();
  const [secret, setSecret] = useState('');
  const save = useMutation({
    mutationFn: async (body: { url: string | null; secret?: string | null }): Promise<NotificationSettings> =>
      dataOf(client.PUT('/api/organization/notifications', { body })),
    onSuccess: (data) => {
      queryClient.setQueryData(KEY, data);
      setUrl(undefined);
      setSecret('');
    },
  });
  const value = url ?? state.data?.url ?? '';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const target = value.trim() || null;
    save.mutate(target !== null && secret ? { url: target, secret } : { url: target });
  };
  const current = state.data;
  return (
    <Card withBorder>
      <Stack>
        <Title order={3}>Notifications</Title>
        <Text size="sm" c="dimmed">
          Notices (a rule turned unhealthy, a digest of newly failed events) are POSTed to this URL, signed like
          deliveries.
        </Text>
        <ProblemAlert error={state.error ?? save.error} />
        {current ? (
          <Text>
            {current.url ? `Notices go to ${current.url}` : 'No notification URL: no notices.'}
            {current.url ? (current.has_secret ? ' (signed with its own secret)' : ' (no secret of its own)') : ''}
          </Text>
        ) : null}
        <form onSubmit={submit}>
          <Stack gap="xs">
            <TextInput
              label="Notification URL"
              placeholder="https://ops.example.com/relay-notices"
              value={value}
              onChange={(e) => setUrl(e.currentTarget.value)}
              error={fieldError(save.error, 'url') ?? fieldError(save.error, 'target_url')}
            />
            <PasswordInput
              label="New signing secret"
              description="16-256 characters; leave empty to keep the current one. Never shown again."
              value={secret}
              onChange={(e) => setSecret(e.currentTarget.value)}
              error={fieldError(save.error, 'secret')}
            />
            <Group>
              <Button type="submit" loading={save.isPending}>
                Save notifications
              </Button>
              {current?.url ? (
                <Button variant="default" onClick={() => save.mutate({ url: null })}>
                  Turn off
                </Button>
              ) : null}
            </Group>
          </Stack>
        </form>
      </Stack>
    </Card>
  );
}
