import { Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { AnchorLink } from '../../components/links';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ConfirmButton } from '../../components/confirm-button';
import { PageLoader } from '../../components/page-loader';
import { ProblemAlert } from '../../components/problem-alert';
import { RuleForm } from './rule-form';
import { rulesQuery } from './rules-query';
import { IngestUrlCell, ingestUrlOf, RuleStateCell } from './rule-row-cells';
import { ruleTrafficQuery, TrafficCounts, TrafficSparkline } from './rule-traffic';
import { SIGNING_LABELS, type Rule } from './rule-types';

/** /app/rules: the rules that route each source to its target. */
export function RulesPage() {
  const { canWrite, can } = useSession();
  const queryClient = useQueryClient();
  const rules = useQuery(rulesQuery);
  // Every rule's traffic of the last 24 hours, hourly, in one call (GET /stats/rules).
  const traffic = useQuery({ ...ruleTrafficQuery(), enabled: can('GET /stats/rules') });
  // The ingest URL to give a rule's sender (the events page's empty state shares the entry).
  const endpoint = useQuery({
    queryKey: ['config', 'endpoint'],
    queryFn: () => dataOf(client.GET('/config/endpoint')),
  });
  const trafficOf = (id: string) => traffic.data?.rules.find((t) => t.rule_id === id);
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: ['rules'] });
  const toggle = useMutation({
    mutationFn: async (rule: Rule): Promise<Rule> =>
      dataOf(client.PATCH('/rules/{id}', { params: { path: { id: rule.id } }, body: { active: !rule.active } })),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: async (id: string) => dataOf(client.DELETE('/rules/{id}', { params: { path: { id } } })),
    onSuccess: invalidate,
  });

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Rules</Title>
        {canWrite ? (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing('new')}>
            New rule
          </Button>
        ) : null}
      </Group>
      <ProblemAlert error={rules.error ?? toggle.error ?? remove.error} />
      {rules.isPending ? <PageLoader /> : null}
      {rules.data?.rules.length === 0 ? (
        <Text c="dimmed">No rules yet: webhooks of every source go to the default target.</Text>
      ) : null}
      {rules.data?.rules.length ? (
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Source</Table.Th>
              <Table.Th>Target</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Last 24 h</Table.Th>
              <Table.Th>Ingest URL</Table.Th>
              <Table.Th>Signing</Table.Th>
              {canWrite ? <Table.Th>Actions</Table.Th> : null}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rules.data.rules.map((rule) => (
              <Table.Tr key={rule.id}>
                <Table.Td>
                  <AnchorLink to="/rules/$id" params={{ id: rule.id }}>
                    {rule.name}
                  </AnchorLink>
                </Table.Td>
                <Table.Td>{rule.source}</Table.Td>
                {/* Long URLs wrap anywhere so the list fits 1280 px; badges keep their whole word. */}
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{rule.target_url}</Table.Td>
                <Table.Td miw={110}>
                  <RuleStateCell rule={rule} />
                </Table.Td>
                <Table.Td>
                  <Stack gap={2}>
                    <TrafficSparkline traffic={trafficOf(rule.id)} />
                    <TrafficCounts traffic={trafficOf(rule.id)} />
                  </Stack>
                </Table.Td>
                <Table.Td>
                  <IngestUrlCell url={ingestUrlOf(endpoint.data?.source_url_template, rule.source)} />
                </Table.Td>
                <Table.Td>{SIGNING_LABELS[rule.signing]}</Table.Td>
                {canWrite ? (
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Button size="xs" variant="default" onClick={() => setEditing(rule)}>
                        Edit
                      </Button>
                      <Button size="xs" variant="default" onClick={() => toggle.mutate(rule)}>
                        {rule.active ? 'Deactivate' : 'Activate'}
                      </Button>
                      <ConfirmButton
                        size="xs"
                        message={`Delete the rule ${rule.name} and its hooks? This cannot be undone.`}
                        confirmLabel="Delete"
                        onConfirm={() => remove.mutate(rule.id)}
                      >
                        Delete
                      </ConfirmButton>
                    </Group>
                  </Table.Td>
                ) : null}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {editing ? <RuleForm rule={editing === 'new' ? undefined : editing} onClose={() => setEditing(null)} /> : null}
    </Stack>
  );
}
