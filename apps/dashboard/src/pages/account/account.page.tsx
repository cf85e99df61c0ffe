import { Alert, Button, Card, Group, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation } from '@tanstack/react-query';
import { useForm } from '@mantine/form';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { useSession } from '../../app/session';
import { ProblemAlert } from '../../components/problem-alert';
import { fieldError } from '../rules/field-error';
import { matchesNewPassword, NewPasswordFields } from './password-fields';

/** /app/account: who is signed in, and changing one's own password (users and platform operators alike). */
export function AccountPage() {
  const { me, isOperator } = useSession();
  const form = useForm({
    initialValues: { current: '', password: '', confirm: '' },
    validate: { confirm: matchesNewPassword },
  });
  const change = useMutation({
    mutationFn: async (values: typeof form.values) => {
      const body = { current_password: values.current, new_password: values.password };
      // An operator's password is the platform's; a user's is the organization's.
      return isOperator
        ? dataOf(client.POST('/api/platform/password', { body }))
        : dataOf(client.POST('/api/auth/password', { body }));
    },
    onSuccess: () => {
      form.reset();
      notifications.show({
        title: 'Password changed',
        message: isOperator
          ? 'Your other sessions have ended.'
          : 'Your other sessions have ended and your personal tokens were revoked.',
      });
    },
  });
  const submit = form.onSubmit((values) => change.mutate(values));
  const who = me.user?.username ?? me.operator?.username;
  // A refusal about one field is shown under it; anything else (too many attempts, …) above the form.
  const currentError = fieldError(change.error, 'current_password');
  const onAField = currentError ?? fieldError(change.error, 'new_password');
  return (
    <Stack maw={520}>
      <Title order={2}>Account</Title>
      <Text>
        Signed in as <b>{who}</b>
        {me.user?.email ? ` (${me.user.email})` : ''}
        {me.login_method === 'idp' ? ' through the identity provider' : ''}.
      </Text>
      <Card withBorder component="form" onSubmit={submit} aria-label="Change password">
        <Stack>
          <Title order={3}>Change password</Title>
          <Text size="sm" c="dimmed">
            {isOperator
              ? 'Your other sessions end; this one stays signed in.'
              : 'Your other sessions end and your personal tokens are revoked; this session stays signed in.'}
          </Text>
          {me.login_method === 'idp' ? (
            <Alert color="blue">
              You signed in through the identity provider. An account created there has no password here; an admin can
              send you a set-password link if you need one.
            </Alert>
          ) : null}
          <ProblemAlert error={onAField ? null : change.error} />
          <PasswordInput
            label="Current password"
            autoComplete="current-password"
            required
            {...form.getInputProps('current')}
            error={currentError}
          />
          <NewPasswordFields
            password={form.getInputProps('password')}
            confirm={form.getInputProps('confirm')}
            error={change.error}
          />
          <Group justify="flex-end">
            <Button type="submit" loading={change.isPending}>
              Change password
            </Button>
          </Group>
        </Stack>
      </Card>
    </Stack>
  );
}
