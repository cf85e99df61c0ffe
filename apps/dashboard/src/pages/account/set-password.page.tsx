import { Alert, Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { AnchorLink } from '../../components/links';
import { ProblemAlert } from '../../components/problem-alert';
import { NewPasswordFields } from './password-fields';

const route = getRouteApi('/set-password');

/**
 * /app/set-password?code=…: public like the sign-in. The one-time code an admin issued sets a new password (every
 * session and personal token of the user end); then to the sign-in.
 */
export function SetPasswordPage() {
  const { code } = route.useSearch();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const redeem = useMutation({
    mutationFn: async () =>
      dataOf(client.POST('/api/auth/password-reset', { body: { code: code ?? '', new_password: password } })),
    onSuccess: () => navigate({ to: '/login', search: { notice: 'password-set' } }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const differ = password !== confirm;
    setMismatch(differ);
    if (!differ) redeem.mutate();
  };
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
            value={password}
            confirm={confirm}
            onChange={setPassword}
            onConfirmChange={setConfirm}
            error={redeem.error}
            mismatch={mismatch}
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
