import { Badge, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { dataOf } from '@relay/client';
import { ApiError, client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ConfirmButton } from '../../components/confirm-button';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from '../rules/field-error';
import { DomainRecords } from './domain-records';
import type { Domain, DomainChecks } from './domain-types';

/** The record checks of a verification: in the answer when it passed, in the problem document when it did not. */
function checksOf(result: unknown): DomainChecks | undefined {
  if (result instanceof ApiError) return (result.problem as { checks?: DomainChecks }).checks;
  return (result as { checks?: DomainChecks } | undefined)?.checks;
}

/** /app/domains: custom ingest hosts, the DNS records that prove them, verification and removal. */
export function DomainsPage() {
  const { canWrite } = useSession();
  const queryClient = useQueryClient();
  const domains = useQuery({
    queryKey: ['domains'],
    queryFn: async (): Promise<{ domains: Domain[] }> => dataOf(client.GET('/api/domains')),
    // Domains are organization management: the API answers admins only, so a viewer is not sent to a 403.
    enabled: canWrite,
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: ['domains'] });
  const [name, setName] = useState('');
  const add = useMutation({
    mutationFn: async (): Promise<Domain> => dataOf(client.POST('/api/domains', { body: { domain: name } })),
    onSuccess: async () => {
      setName('');
      await invalidate();
    },
  });
  const verify = useMutation({
    mutationFn: async (id: string): Promise<Domain & { checks: DomainChecks }> =>
      dataOf(client.POST('/api/domains/{id}/verify', { params: { path: { id } } })),
    onSettled: invalidate,
  });
  const remove = useMutation({
    mutationFn: async (id: string) => dataOf(client.DELETE('/api/domains/{id}', { params: { path: { id } } })),
    onSuccess: invalidate,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  const checks = checksOf(verify.error ?? verify.data);

  return (
    <Stack>
      <Title order={2}>Custom domains</Title>
      <ProblemAlert error={domains.error ?? remove.error} />
      {canWrite ? (
        <form onSubmit={submit} aria-label="Add domain">
          <ProblemAlert error={add.error} />
          <Group align="flex-start">
            <TextInput
              label="Domain"
              placeholder="hooks.example.com"
              required
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={fieldError(add.error, 'domain')}
            />
            <Button type="submit" mt={25} loading={add.isPending}>
              Add domain
            </Button>
          </Group>
        </form>
      ) : null}
      {canWrite ? null : <Text c="dimmed">Custom ingest domains are managed by the organization&apos;s admins.</Text>}
      {domains.isLoading ? <PageLoader /> : null}
      {domains.data?.domains.length === 0 ? <Text c="dimmed">No custom domains.</Text> : null}
      {domains.data?.domains.map((d) => (
        <Card withBorder key={d.id}>
          <Stack>
            <Group justify="space-between">
              <Group>
                <Title order={4}>{d.domain}</Title>
                <Badge color={d.status === 'active' ? 'green' : 'yellow'}>{d.status}</Badge>
              </Group>
              {canWrite ? (
                <Group gap="xs">
                  <Button
                    size="xs"
                    onClick={() => verify.mutate(d.id)}
                    loading={verify.isPending && verify.variables === d.id}
                  >
                    Verify
                  </Button>
                  <ConfirmButton
                    size="xs"
                    message={`Remove ${d.domain}? It stops receiving webhooks at once.`}
                    confirmLabel="Remove"
                    onConfirm={() => remove.mutate(d.id)}
                  >
                    Remove
                  </ConfirmButton>
                </Group>
              ) : null}
            </Group>
            {verify.variables === d.id ? <ProblemAlert error={verify.error} /> : null}
            {d.last_check_error && verify.variables !== d.id ? (
              <Text size="sm">Last check: {d.last_check_error}</Text>
            ) : null}
            <DomainRecords records={d.records} checks={verify.variables === d.id ? checks : undefined} />
          </Stack>
        </Card>
      ))}
    </Stack>
  );
}
