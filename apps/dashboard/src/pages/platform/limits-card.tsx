import { Card, Stack, Table, Title } from '@mantine/core';
import type { OrganizationDetail } from './platform-types';

const INSTALL = 'install-wide setting';

const perWindow = (limit: number | null, seconds: number) =>
  limit === null ? 'no limit' : `${limit.toLocaleString('en-US')} per ${seconds === 60 ? 'minute' : `${seconds} s`}`;

/** The rate limits in effect and retention, each saying whether it is the organization's own or the install's. */
export function LimitsCard({ organization: o }: { organization: OrganizationDetail }) {
  const { subscription: own, rate_limits_in_effect: inEffect } = o;
  const rows = [
    {
      label: 'Ingest rate limit',
      value: perWindow(inEffect.ingest_rate_limit, inEffect.window_seconds),
      source: own.ingest_rate_limit === null ? INSTALL : 'own',
    },
    {
      label: 'API rate limit (per credential)',
      value: perWindow(inEffect.api_rate_limit, inEffect.window_seconds),
      source: own.api_rate_limit === null ? INSTALL : 'own',
    },
    {
      label: 'Retention',
      value: o.retention_days_in_effect === null ? 'kept forever' : `${o.retention_days_in_effect} days`,
      source: own.retention_days === null ? INSTALL : 'own',
    },
  ];
  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={3}>Limits</Title>
        <Table aria-label="Limits">
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.label}>
                <Table.Th scope="row">{r.label}</Table.Th>
                <Table.Td>{r.value}</Table.Td>
                <Table.Td c="dimmed">{r.source}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Stack>
    </Card>
  );
}
