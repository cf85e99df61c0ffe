import { Button, Group } from '@mantine/core';

/** The foot of a dialog's form: Cancel closes it, the submit button shows the request in flight. */
export function FormActions({
  onCancel,
  pending,
  submitLabel = 'Create',
}: {
  onCancel: () => void;
  pending: boolean;
  submitLabel?: string;
}) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" loading={pending}>
        {submitLabel}
      </Button>
    </Group>
  );
}
