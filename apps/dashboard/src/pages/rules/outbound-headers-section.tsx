import { ActionIcon, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { fieldError, fieldErrorUnder } from './field-error';
import type { SectionProps } from './rule-option-props';
import type { TargetOptionsDraft } from './target-options-draft';

/** Headers every delivery to the target carries with fixed values, and inbound headers it never forwards. */
export function OutboundHeadersSection({ draft, set, error }: SectionProps<TargetOptionsDraft>) {
  const rows = draft.setHeaders;
  const change = (i: number, patch: Partial<{ name: string; value: string }>) =>
    set({ setHeaders: rows.map((row, j) => (j === i ? { ...row, ...patch } : row)) });
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>
        Set headers
      </Text>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          None: deliveries carry the forwarded inbound headers only.
        </Text>
      ) : null}
      {rows.map((row, i) => (
        <Group key={i} align="flex-start" wrap="nowrap">
          <TextInput
            aria-label={`Header name ${i + 1}`}
            placeholder="x-team"
            value={row.name}
            onChange={(e) => change(i, { name: e.currentTarget.value })}
            error={fieldErrorUnder(error, `outbound_headers.set.${row.name.trim().toLowerCase()}`)}
          />
          <TextInput
            aria-label={`Header value ${i + 1}`}
            placeholder="payments"
            value={row.value}
            onChange={(e) => change(i, { value: e.currentTarget.value })}
          />
          <ActionIcon
            variant="subtle"
            mt={4}
            aria-label={`Remove header ${i + 1}`}
            onClick={() => set({ setHeaders: rows.filter((_, j) => j !== i) })}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      {fieldError(error, 'outbound_headers.set') ? (
        <Text size="sm" c="red">
          {fieldError(error, 'outbound_headers.set')}
        </Text>
      ) : null}
      <Group>
        <Button
          size="xs"
          variant="default"
          leftSection={<IconPlus size={14} />}
          onClick={() => set({ setHeaders: [...rows, { name: '', value: '' }] })}
        >
          Add header
        </Button>
      </Group>
      <TextInput
        label="Remove inbound headers"
        description="Comma-separated names never forwarded to the target"
        placeholder="cookie, x-debug"
        value={draft.removeHeaders}
        onChange={(e) => set({ removeHeaders: e.currentTarget.value })}
        error={fieldErrorUnder(error, 'outbound_headers.remove')}
      />
    </Stack>
  );
}
