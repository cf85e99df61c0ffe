import { PasswordInput, Text } from '@mantine/core';
import { fieldError } from '../rules/field-error';

/** What the API asks of a new password (passwordSchema), said before it refuses one. */
export const PASSWORD_RULES =
  'At least 12 characters; under 16 it needs three of lowercase, uppercase, digits and symbols.';

/** A new password typed twice; the mismatch is caught here, the API's refusals shown under the first field. */
export function NewPasswordFields({
  value,
  confirm,
  onChange,
  onConfirmChange,
  error,
  mismatch,
}: {
  value: string;
  confirm: string;
  onChange: (value: string) => void;
  onConfirmChange: (value: string) => void;
  error: unknown;
  mismatch: boolean;
}) {
  return (
    <>
      <PasswordInput
        label="New password"
        autoComplete="new-password"
        required
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
        error={fieldError(error, 'new_password')}
      />
      <PasswordInput
        label="Confirm new password"
        autoComplete="new-password"
        required
        value={confirm}
        onChange={(e) => onConfirmChange(e.currentTarget.value)}
        error={mismatch ? 'The two passwords differ.' : undefined}
      />
      <Text size="xs" c="dimmed">
        {PASSWORD_RULES}
      </Text>
    </>
  );
}
