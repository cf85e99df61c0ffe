import { Badge, Stack, Table, Text } from '@mantine/core';
import { CopyField } from '../settings/copy-field';
import type { DomainChecks, DomainRecord } from './domain-types';

/** The exact DNS records to add, and after a verification which of them is missing or wrong. */
export function DomainRecords({ records, checks }: { records: DomainRecord[]; checks?: DomainChecks }) {
  const checkOf = (type: DomainRecord['type']) => (type === 'CNAME' ? checks?.cname : checks?.txt);
  return (
    <Table>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Type</Table.Th>
          <Table.Th>Name</Table.Th>
          <Table.Th>Value</Table.Th>
          {checks ? <Table.Th>Check</Table.Th> : null}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {records.map((r) => {
          const check = checkOf(r.type);
          return (
            <Table.Tr key={`${r.type}:${r.name}`}>
              <Table.Td>{r.type}</Table.Td>
              <Table.Td>
                <CopyField value={r.name} label={`${r.type} name`} />
              </Table.Td>
              <Table.Td>
                <CopyField value={r.value} label={`${r.type} value`} />
              </Table.Td>
              {check ? (
                <Table.Td>
                  <Stack gap={2}>
                    <Badge color={check.ok ? 'green' : 'red'}>{check.ok ? 'ok' : `${r.type} missing or wrong`}</Badge>
                    {check.problem ? <Text size="xs">{check.problem}</Text> : null}
                    {!check.ok && check.found.length ? (
                      <Text size="xs" c="dimmed">
                        Found: {check.found.join(', ')}
                      </Text>
                    ) : null}
                  </Stack>
                </Table.Td>
              ) : null}
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
