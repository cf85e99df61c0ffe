import { Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from '../rules/field-error';
import type { DefaultTarget } from './settings-types';

/** Where events without a rule go: the organization's own default, else the install's DEFAULT_TARGET_URL. */
export function DefaultTargetCard({ canWrite }: { canWrite: boolean }) {
  const queryClient = useQueryClient();
  const state = useQuery({
    queryKey: ['config', 'default-target'],
    queryFn: async (): Promise<DefaultTarget> => dataOf(client.GET('/config/default-target')),
  });
  const [draft, setDraft] = useState<string>();
  const save = useMutation({
    mutationFn: async (target_url: string | null): Promise<DefaultTarget> =>
      dataOf(client.POST('/config/default-target', { body: { target_url } })),
    onSuccess: (data) => {
      queryClient.setQueryData(['config', 'default-target'], data);
      setDraft(undefined);
    },
  });
  const value = draft ?? state.data?.target_url ?? '';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(value.trim() || null);
  };
  return (
    <Card withBorder>
      <Stack>
        <Title order={3}>Default target</Title>
        <ProblemAlert error={state.error ?? save.error} />
        <Text>
          In effect: {state.data?.effective_target_url ?? 'none (events without a rule fail)'}
          {state.data?.effective_from === 'install' ? ' (the install default)' : ''}
        </Text>
        {canWrite ? (
          <form onSubmit={submit}>
            <Group align="flex-start">
              <TextInput
                label="Organization default target"
                placeholder="https://example.com/webhooks"
                value={value}
                onChange={(e) => setDraft(e.currentTarget.value)}
                error={fieldError(save.error, 'target_url')}
                style={{ flex: 1 }}
              />
              <Button type="submit" mt={25} loading={save.isPending}>
                Save
              </Button>
              {state.data?.target_url ? (
                <Button variant="default" mt={25} onClick={() => save.mutate(null)}>
                  Clear
                </Button>
              ) : null}
            </Group>
          </form>
        ) : null}
      </Stack>
    </Card>
  );
}
