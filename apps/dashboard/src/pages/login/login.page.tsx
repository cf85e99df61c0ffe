import { Alert, Button, Center, Divider, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, useRouter } from '@tanstack/react-router';
import { useForm } from '@mantine/form';
import { dataOf } from '@relay/client';
import { client } from '../../app/api-client';
import { PRODUCT_NAME } from '../../app/product';
import { APP_BASE, homeOf, meQuery, safeRedirect } from '../../app/session';
import { ProblemAlert } from '../../components/problem-alert';
import { idpErrorText } from './idp-errors';

const route = getRouteApi('/login');

const NOTICES = { 'password-set': 'Your password is set: sign in with it.' } as const;

/**
 * Where the identity-provider button leads: the API's `login_url` with `return_to`, the dashboard page to come back
 * to (a path on this origin only; the API checks it again). A same-origin URL stays a path.
 */
export function idpHref(loginUrl: string, back: string | undefined): string {
  const here = globalThis.location?.origin ?? 'http://localhost';
  const target = new URL(loginUrl, here);
  if (back) target.searchParams.set('return_to', `${APP_BASE}${back}`);
  return target.origin === here ? `${target.pathname}${target.search}` : target.href;
}

const oauthQuery = {
  queryKey: ['config', 'oauth'],
  queryFn: async () => dataOf(client.GET('/config/oauth')),
  staleTime: 60_000,
};

/** The provider's host (`id.example.com`), which says more to a person than its full issuer URL. */
const issuerName = (issuer: string): string => {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
};

/** Whose sign-in this is: the product, and the organization when the API may name it (docs/dashboard.md). */
function Heading() {
  const organization = useQuery(oauthQuery).data?.organization_name;
  return (
    <Stack gap={4}>
      <Text fw={700} c="dimmed" size="sm">
        {PRODUCT_NAME}
      </Text>
      <Title order={2}>Sign in</Title>
      {organization ? (
        <Text size="sm" data-testid="login-organization">
          to <b>{organization}</b>
        </Text>
      ) : null}
    </Stack>
  );
}

/** The identity-provider sign-in, when the organization has one (`GET /config/oauth`); nothing otherwise. */
function IdpButton({ back }: { back: string | undefined }) {
  const config = useQuery(oauthQuery).data;
  if (!config?.enabled || !config.login_url) return null;
  return (
    <>
      <Divider label="or" labelPosition="center" />
      {/* A full page load: the API answers with a redirect to the provider, which comes back to the API. */}
      <Button component="a" href={idpHref(config.login_url, back)} variant="default">
        {config.button_label ?? 'Sign in with your identity provider'}
      </Button>
      {config.issuer ? (
        <Text size="xs" c="dimmed" ta="center">
          Identity provider: {issuerName(config.issuer)}
        </Text>
      ) : null}
    </>
  );
}

/** Password sign-in; afterwards back to the page that asked for it, else the caller's home. */
export function LoginPage() {
  const { redirect, notice, error } = route.useSearch();
  const router = useRouter();
  const queryClient = useQueryClient();
  const form = useForm({ initialValues: { username: '', password: '' } });
  const login = useMutation({
    mutationFn: (body: typeof form.values) => dataOf(client.POST('/api/auth/login', { body })),
    onSuccess: async () => {
      queryClient.clear();
      const me = await queryClient.fetchQuery(meQuery);
      const back = safeRedirect(redirect);
      // `back` is the router's own href (path and search as the router wrote them), so it is replayed as is.
      if (back) router.history.push(`${APP_BASE}${back}`);
      else await router.navigate({ to: homeOf(me) });
    },
  });
  const submit = form.onSubmit((values) => login.mutate(values));
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={380} component="form" onSubmit={submit}>
        <Stack>
          <Heading />
          {notice ? (
            <Alert color="green" role="status">
              {NOTICES[notice]}
            </Alert>
          ) : null}
          {error && !login.error ? (
            <Alert
              color="red"
              icon={<IconAlertTriangle />}
              role="alert"
              title="Sign-in through the identity provider failed"
            >
              {idpErrorText(error)}
            </Alert>
          ) : null}
          <ProblemAlert error={login.error} />
          <TextInput label="Username" autoComplete="username" required {...form.getInputProps('username')} />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            required
            {...form.getInputProps('password')}
          />
          <Button type="submit" loading={login.isPending}>
            Sign in
          </Button>
          <IdpButton back={safeRedirect(redirect)} />
        </Stack>
      </Paper>
    </Center>
  );
}
