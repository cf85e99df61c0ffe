import { Badge, Button, Group, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { ConfirmCell } from '../../components/confirm-button';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import type { Token } from './access-types';
import { CredentialForm } from './credential-form';

const SOURCES = {
  'api-key': { noun: 'API key' },
  token: { noun: 'personal token' },
} as const;

const when = (at: string | null) => (at ? new Date(at).toLocaleString() : '—');

/** The organization's API keys, or the caller's personal tokens: listed without secrets, created, revoked. */
export function CredentialsPanel({ kind, canWrite }: { kind: 'api-key' | 'token'; canWrite: boolean }) {
  const { noun } = SOURCES[kind];
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const list = useQuery({
    queryKey: [kind],
    queryFn: async (): Promise<Token[]> =>
      kind === 'api-key'
        ? (await dataOf(client.GET('/api/api-keys'))).api_keys
        : (await dataOf(client.GET('/api/auth/tokens'))).tokens,
  });
  const remove = useMutation({
    mutationFn: async (id: string) =>
      kind === 'api-key'
        ? dataOf(client.DELETE('/api/api-keys/{id}', { params: { path: { id } } }))
        : dataOf(client.DELETE('/api/auth/tokens/{id}', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [kind] }),
  });
  return (
    <Stack>
      <ProblemAlert error={list.error ?? remove.error} />
      {canWrite ? (
        <Group>
          <Button onClick={() => setCreating(true)}>New {noun}</Button>
        </Group>
      ) : null}
      {list.isLoading ? <PageLoader /> : null}
      {list.data?.length === 0 ? <Text c="dimmed">No {noun}s.</Text> : null}
      {list.data?.length ? (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Prefix</Table.Th>
              {kind === 'api-key' ? <Table.Th>Scopes</Table.Th> : null}
              <Table.Th>Expires</Table.Th>
              <Table.Th>Last used</Table.Th>
              {canWrite ? <Table.Th /> : null}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data.map((t) => (
              <Table.Tr key={t.id}>
                <Table.Td>{t.name}</Table.Td>
                <Table.Td>{t.prefix}</Table.Td>
                {kind === 'api-key' ? (
                  <Table.Td>
                    <Group gap={4}>
                      {t.scopes?.map((s) => (
                        <Badge key={s} variant="light">
                          {s}
                        </Badge>
                      ))}
                    </Group>
                  </Table.Td>
                ) : null}
                <Table.Td>{when(t.expires_at)}</Table.Td>
                <Table.Td>{when(t.last_used_at)}</Table.Td>
                {canWrite ? (
                  <ConfirmCell
                    message={`Revoke the ${noun} ${t.name}? Clients using it stop working at once.`}
                    label="Revoke"
                    onConfirm={() => remove.mutate(t.id)}
                  />
                ) : null}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {creating ? <CredentialForm kind={kind} onClose={() => setCreating(false)} /> : null}
    </Stack>
  );
}
