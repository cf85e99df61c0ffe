import { Button, Group, Modal, Table, Text, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';

interface ConfirmButtonProps extends ButtonProps {
  /** What the dialog asks, e.g. "Delete 3 events? This cannot be undone." */
  message: ReactNode;
  confirmLabel?: string;
  onConfirm: () => void;
  children: ReactNode;
}

/** A destructive action: the click opens a dialog and only its confirm button acts. */
export function ConfirmButton({
  message,
  confirmLabel = 'Confirm',
  onConfirm,
  children,
  ...props
}: ConfirmButtonProps) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button color="red" variant="light" {...props} onClick={open}>
        {children}
      </Button>
      <Modal opened={opened} onClose={close} title="Please confirm" centered>
        <Text mb="md">{message}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button
            color="red"
            onClick={() => {
              close();
              onConfirm();
            }}
          >
            {confirmLabel}
          </Button>
        </Group>
      </Modal>
    </>
  );
}

/** A table cell holding one small destructive action (delete, revoke) behind its confirmation. */
export function ConfirmCell({
  message,
  label,
  onConfirm,
}: {
  message: ReactNode;
  label: string;
  onConfirm: () => void;
}) {
  return (
    <Table.Td>
      <ConfirmButton size="xs" message={message} confirmLabel={label} onConfirm={onConfirm}>
        {label}
      </ConfirmButton>
    </Table.Td>
  );
}
