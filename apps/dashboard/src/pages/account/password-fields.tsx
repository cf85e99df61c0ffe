import { PasswordInput, Text } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { fieldError } from '../rules/field-error';

/** What the API asks of a new password (passwordSchema), said before it refuses one. */
export const PASSWORD_RULES =
  'At least 12 characters; under 16 it needs three of lowercase, uppercase, digits and symbols.';

/** The form's rule for the second field: a mismatch is caught before the API is asked. */
export const matchesNewPassword = (confirm: string, values: { password: string }) =>
  confirm === values.password ? null : 'The two passwords differ.';

/**
 * A new password typed twice: `password` and `confirm` are the form's input props (the confirmation carries the
 * form's mismatch error); the API's refusals are shown under the first field.
 */
export function NewPasswordFields({
  password,
  confirm,
  error,
}: {
  password: GetInputPropsReturnType;
  confirm: GetInputPropsReturnType;
  error: unknown;
}) {
  return (
    <>
      <PasswordInput
        label="New password"
        autoComplete="new-password"
        required
        {...password}
        error={fieldError(error, 'new_password')}
      />
      <PasswordInput label="Confirm new password" autoComplete="new-password" required {...confirm} />
      <Text size="xs" c="dimmed">
        {PASSWORD_RULES}
      </Text>
    </>
  );
}
