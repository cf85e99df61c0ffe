import { Badge, Button, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { useState } from 'react';
import { AnchorLink } from '../../components/links';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ConfirmCell } from '../../components/confirm-button';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { BlockedKeysCard } from './blocked-keys-card';
import { DestinationsSection } from './destinations-section';
import { HookForm } from './hook-form';
import { RotateSecret } from './rotate-secret';
import { RuleHealthCard } from './rule-health-card';
import { RotateVerificationSecret } from './rotate-verification-secret';
import { RuleForm } from './rule-form';
import { RuleOptionsCard } from './rule-options-card';
import { RuleRecentEvents } from './rule-recent-events';
import { RuleTrafficCard } from './rule-traffic';
import { SIGNING_LABELS, type Hook, type Rule } from './rule-types';
import { TargetBadges } from './target-badges';

const stateLabel = (r: Rule) => (!r.active ? 'inactive' : r.health.status === 'unhealthy' ? 'unhealthy' : 'active');
const stateColor = (r: Rule) => ({ inactive: 'gray', unhealthy: 'red', active: 'green' })[stateLabel(r)];

/**
 * /app/rules/$id: one rule (edited in place), its health, traffic and recent events, its destinations and the hooks
 * that follow its deliveries.
 */
export function RuleDetailPage() {
  const { id = '' } = useParams({ strict: false });
  const { canWrite } = useSession();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const rule = useQuery({
    queryKey: ['rules', id],
    queryFn: async (): Promise<Rule> => dataOf(client.GET('/rules/{id}', { params: { path: { id } } })),
  });
  const hooks = useQuery({
    queryKey: ['rules', id, 'hooks'],
    queryFn: async (): Promise<{ hooks: Hook[] }> =>
      dataOf(client.GET('/rules/{id}/hooks', { params: { path: { id } } })),
  });
  const remove = useMutation({
    mutationFn: async (hookId: string) =>
      dataOf(client.DELETE('/rules/{id}/hooks/{hookId}', { params: { path: { id, hookId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['rules', id, 'hooks'] }),
  });

  if (rule.isPending) return <PageLoader />;
  if (rule.error) return <ProblemAlert error={rule.error} />;
  const r = rule.data;
  return (
    <Stack>
      <AnchorLink to="/rules" size="sm">
        ← Rules
      </AnchorLink>
      <Group>
        <Title order={2}>{r.name}</Title>
        {/* As in the rules list: an unhealthy rule is never a green "active" (the health card says why). */}
        <Badge color={stateColor(r)}>{stateLabel(r)}</Badge>
        <TargetBadges target={r} />
        {canWrite && !editing ? (
          <Button size="xs" variant="default" ml="auto" onClick={() => setEditing(true)}>
            Edit rule
          </Button>
        ) : null}
      </Group>
      {/* Edited in place: the fields replace the details and options until saved or cancelled. The page's rule
          carries the transform's code, so the form opens on it as saved. */}
      {editing ? (
        <RuleForm rule={r} inline onClose={() => setEditing(false)} />
      ) : (
        <Card withBorder>
          <Text>Source: {r.source}</Text>
          <Text>Target: {r.target_url}</Text>
          <Text>Signing: {SIGNING_LABELS[r.signing]}</Text>
          {r.description ? <Text c="dimmed">{r.description}</Text> : null}
        </Card>
      )}
      <RuleHealthCard rule={r} canWrite={canWrite} />
      <RuleTrafficCard ruleId={r.id} />
      <RuleRecentEvents ruleId={r.id} />
      {canWrite ? <RotateSecret rule={r} /> : null}
      {editing ? null : <RuleOptionsCard rule={r} />}
      <BlockedKeysCard rule={r} />
      {canWrite && (r.verification || r.has_verification_secret) ? <RotateVerificationSecret rule={r} /> : null}
      <DestinationsSection rule={r} />
      <Title order={3}>Hooks</Title>
      <ProblemAlert error={hooks.error ?? remove.error} />
      {hooks.data?.hooks.length === 0 ? (
        <Text c="dimmed">No hooks: nothing follows this rule&apos;s deliveries.</Text>
      ) : null}
      {hooks.data?.hooks.length ? (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Target</Table.Th>
              <Table.Th>Trigger</Table.Th>
              <Table.Th>Status</Table.Th>
              {canWrite ? <Table.Th>Actions</Table.Th> : null}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {hooks.data.hooks.map((hook) => (
              <Table.Tr key={hook.id}>
                <Table.Td>{hook.name}</Table.Td>
                <Table.Td>{hook.target_url}</Table.Td>
                <Table.Td>{hook.trigger}</Table.Td>
                <Table.Td>{hook.active ? 'active' : 'inactive'}</Table.Td>
                {canWrite ? (
                  <ConfirmCell
                    message={`Delete the hook ${hook.name} (to ${hook.target_url})?`}
                    label="Delete"
                    onConfirm={() => remove.mutate(hook.id)}
                  />
                ) : null}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {canWrite ? <HookForm ruleId={id} /> : null}
    </Stack>
  );
}
