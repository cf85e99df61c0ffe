import { Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, useRouter } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { api } from '../../app/api-client';
import { APP_BASE, homeOf, meQuery, safeRedirect } from '../../app/session';
import { ProblemAlert } from '../../components/problem-alert';

const route = getRouteApi('/login');

/** Password sign-in; afterwards back to the page that asked for it, else the caller's home. */
export function LoginPage() {
  const { redirect } = route.useSearch();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation({
    mutationFn: () => api.post('/api/auth/login', { username, password }),
    onSuccess: async () => {
      queryClient.clear();
      const me = await queryClient.fetchQuery(meQuery);
      const back = safeRedirect(redirect);
      // `back` is the router's own href (path and search as the router wrote them), so it is replayed as is.
      if (back) router.history.push(`${APP_BASE}${back}`);
      else await router.navigate({ to: homeOf(me) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={380} component="form" onSubmit={submit}>
        <Stack>
          <Title order={2}>Sign in</Title>
          <ProblemAlert error={login.error} />
          <TextInput
            label="Username"
            autoComplete="username"
            required
            value={username}
            onChange={(e) => setUsername(e.currentTarget.value)}
          />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <Button type="submit" loading={login.isPending}>
            Sign in
          </Button>
        </Stack>
      </Paper>
    </Center>
  );
}
