import { Alert, Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useForm } from '@mantine/form';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { AnchorLink } from '../../components/links';
import { ProblemAlert } from '../../components/problem-alert';
import { matchesNewPassword, NewPasswordFields } from './password-fields';

const route = getRouteApi('/set-password');

/**
 * /app/set-password?code=…: public like the sign-in. The one-time code an admin issued sets a new password (every
 * session and personal token of the user end); then to the sign-in.
 */
export function SetPasswordPage() {
  const { code } = route.useSearch();
  const navigate = useNavigate();
  const form = useForm({ initialValues: { password: '', confirm: '' }, validate: { confirm: matchesNewPassword } });
  const redeem = useMutation({
    mutationFn: async ({ password }: typeof form.values) =>
      dataOf(client.POST('/api/auth/password-reset', { body: { code: code ?? '', new_password: password } })),
    onSuccess: () => navigate({ to: '/login', search: { notice: 'password-set' } }),
  });
  const submit = form.onSubmit((values) => redeem.mutate(values));
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={420} component="form" onSubmit={submit} aria-label="Set password">
        <Stack>
          <Title order={2}>Set your password</Title>
          {code ? (
            <Text size="sm" c="dimmed">
              This link works once. Setting a password signs you out everywhere.
            </Text>
          ) : (
            <Alert color="red" role="alert" title="No code">
              This page needs the link an admin gave you (it carries a one-time code). Ask them for a new one.
            </Alert>
          )}
          <ProblemAlert error={redeem.error} />
          <NewPasswordFields
            password={form.getInputProps('password')}
            confirm={form.getInputProps('confirm')}
            error={redeem.error}
          />
          <Button type="submit" loading={redeem.isPending} disabled={!code}>
            Set password
          </Button>
          <AnchorLink size="sm" to="/login">
            Back to sign in
          </AnchorLink>
        </Stack>
      </Paper>
    </Center>
  );
}
