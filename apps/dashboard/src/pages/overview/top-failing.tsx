import { Card, Table, Text, Title } from '@mantine/core';
import { AnchorLink } from '../../components/links';

export interface FailingRule {
  rule_id: string;
  name: string;
  target_url: string;
  total: number;
  delivered: number;
  failed: number;
  /** failed / (delivered + failed), as the success rate and the chart's line. */
  failure_rate: number;
}
export interface FailingDestination extends FailingRule {
  destination_id: string;
}
interface Props {
  rules: FailingRule[];
  destinations: FailingDestination[];
  from: string;
  to: string;
}

const pct = (rate: number) => `${(rate * 100).toFixed(1)} %`;

/** The window's rules with the most failed events, each count a link to exactly those events. */
export function TopFailingRules({ rules, from, to }: Omit<Props, 'destinations'>) {
  return (
    <Card withBorder>
      <Title order={4} mb="sm">
        Top failing rules
      </Title>
      {rules.length === 0 ? <Text c="dimmed">No rule had a failed event in this window.</Text> : null}
      {rules.length > 0 ? (
        <Table aria-label="Top failing rules">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Rule</Table.Th>
              <Table.Th ta="right">Failed</Table.Th>
              <Table.Th ta="right">Events</Table.Th>
              <Table.Th ta="right">Failure rate</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rules.map((r) => (
              <Table.Tr key={r.rule_id}>
                <Table.Td>
                  <AnchorLink to="/rules/$id" params={{ id: r.rule_id }}>
                    {r.name}
                  </AnchorLink>
                </Table.Td>
                <Table.Td ta="right">
                  <AnchorLink
                    to="/events"
                    search={{ rule_id: r.rule_id, status: 'failed', from, to }}
                    aria-label={`${r.failed} failed events of ${r.name}`}
                  >
                    {r.failed}
                  </AnchorLink>
                </Table.Td>
                <Table.Td ta="right">
                  <AnchorLink
                    to="/events"
                    search={{ rule_id: r.rule_id, from, to }}
                    aria-label={`${r.total} events of ${r.name}`}
                  >
                    {r.total}
                  </AnchorLink>
                </Table.Td>
                <Table.Td ta="right">{pct(r.failure_rate)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
    </Card>
  );
}

/**
 * The window's failing targets: each rule's own target (its events' status) and its destinations (their deliveries'
 * status, docs/routing.md), the most failures first, each count a link to those events.
 */
export function TopFailingTargets({ rules, destinations, from, to }: Props) {
  const targets = [
    ...rules.map((r) => ({
      key: r.rule_id,
      url: r.target_url,
      via: `rule ${r.name}`,
      failed: r.failed,
      total: r.total,
      failedLink: { rule_id: r.rule_id, status: 'failed' as const, from, to },
      allLink: { rule_id: r.rule_id, from, to },
    })),
    ...destinations.map((d) => ({
      key: d.destination_id,
      url: d.target_url,
      via: `destination ${d.name}`,
      failed: d.failed,
      total: d.total,
      failedLink: { destination_id: d.destination_id, delivery_status: 'failed' as const, from, to },
      allLink: { destination_id: d.destination_id, from, to },
    })),
  ]
    .sort((a, b) => b.failed - a.failed || b.total - a.total)
    .slice(0, 10);
  return (
    <Card withBorder>
      <Title order={4} mb="sm">
        Top failing targets
      </Title>
      {targets.length === 0 ? <Text c="dimmed">No target failed in this window.</Text> : null}
      {targets.length > 0 ? (
        <Table aria-label="Top failing targets">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Target</Table.Th>
              <Table.Th ta="right">Failed</Table.Th>
              <Table.Th ta="right">Sent</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {targets.map((t) => (
              <Table.Tr key={t.key}>
                <Table.Td maw={320}>
                  <Text size="sm" truncate="end" title={t.url}>
                    {t.url}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {t.via}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">
                  <AnchorLink to="/events" search={t.failedLink} aria-label={`${t.failed} failed to ${t.via}`}>
                    {t.failed}
                  </AnchorLink>
                </Table.Td>
                <Table.Td ta="right">
                  <AnchorLink to="/events" search={t.allLink} aria-label={`${t.total} sent to ${t.via}`}>
                    {t.total}
                  </AnchorLink>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
    </Card>
  );
}
