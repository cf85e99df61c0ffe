import { ActionIcon, Code, Table, Text } from '@mantine/core';
import { Fragment, useState } from 'react';
import type { AuditEntry } from './access-types';

// Long cells wrap inside fixed columns, so the table never grows past its container (1280 px and narrower).
const wrap = { overflowWrap: 'anywhere', wordBreak: 'break-word' } as const;

/** The keys of an entry's metadata in one short line; the whole of it opens below the row. */
const summary = (metadata: Record<string, unknown>) => Object.keys(metadata).join(', ');

/** Audit entries, each with its metadata as indented JSON on demand. */
export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((was) => {
      const next = new Set(was);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return (
    <Table layout="fixed" data-testid="audit-table" style={wrap}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={170}>When</Table.Th>
          <Table.Th w="22%">Actor</Table.Th>
          <Table.Th w="18%">Action</Table.Th>
          <Table.Th w="26%">Resource</Table.Th>
          <Table.Th>Metadata</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {entries.map((e) => {
          const hasMetadata = Object.keys(e.metadata).length > 0;
          const expanded = open.has(e.id);
          return (
            <Fragment key={e.id}>
              <Table.Tr>
                <Table.Td>{new Date(`${e.created_at.replace(/Z?$/, 'Z')}`).toLocaleString()}</Table.Td>
                <Table.Td>{e.actor_email}</Table.Td>
                <Table.Td>{e.action}</Table.Td>
                <Table.Td>
                  {e.resource_type}{' '}
                  <Text span size="xs" c="dimmed" ff="monospace">
                    {e.resource_id}
                  </Text>
                </Table.Td>
                <Table.Td>
                  {hasMetadata ? (
                    <Text size="sm" lineClamp={2}>
                      <ActionIcon
                        variant="subtle"
                        size="sm"
                        mr={4}
                        aria-expanded={expanded}
                        aria-label={`${expanded ? 'Hide' : 'Show'} metadata of ${e.action}`}
                        onClick={() => toggle(e.id)}
                      >
                        {expanded ? '▾' : '▸'}
                      </ActionIcon>
                      {summary(e.metadata)}
                    </Text>
                  ) : null}
                </Table.Td>
              </Table.Tr>
              {expanded ? (
                <Table.Tr>
                  <Table.Td colSpan={5}>
                    <Code block style={{ whiteSpace: 'pre-wrap', ...wrap }}>
                      {JSON.stringify(e.metadata, null, 2)}
                    </Code>
                  </Table.Td>
                </Table.Tr>
              ) : null}
            </Fragment>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
