import { Group, Kbd, Modal, Table, Text } from '@mantine/core';
import { shortcutList } from './keyboard-shortcuts';
import type { Me } from './session';

/** The list of keyboard shortcuts, opened with "?" (or the header's button). */
export function KeyboardShortcutsHelp({ me, opened, onClose }: { me: Me; opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title="Keyboard shortcuts">
      <Table aria-label="Keyboard shortcuts">
        <Table.Tbody>
          {shortcutList(me).map((s) => (
            <Table.Tr key={s.keys.join(' ')}>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  {s.keys.map((k, i) => (
                    <Group key={k} gap={4} wrap="nowrap">
                      {i > 0 ? <Text size="xs">then</Text> : null}
                      <Kbd>{k}</Kbd>
                    </Group>
                  ))}
                </Group>
              </Table.Td>
              <Table.Td>{s.label}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="sm" c="dimmed" mt="sm">
        Keys typed into a field or an editor are never taken as shortcuts.
      </Text>
    </Modal>
  );
}
