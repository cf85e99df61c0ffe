import { Stack, Tabs, Title } from '@mantine/core';
import { useSession } from '../../app/session';
import { AuditPanel } from './audit-panel';
import { CredentialsPanel } from './credentials-panel';
import { UsersPanel } from './users-panel';

/** /app/access: users and roles and API keys (admins), the caller's personal tokens, and the audit log. */
export function AccessPage() {
  const { me, canWrite } = useSession();
  // An API key has no personal tokens; users and keys are organization management (admins).
  const hasTokens = me.kind === 'user';
  const first = canWrite ? 'users' : hasTokens ? 'tokens' : 'audit';
  return (
    <Stack>
      <Title order={2}>Access</Title>
      <Tabs defaultValue={first} keepMounted={false}>
        <Tabs.List>
          {canWrite ? <Tabs.Tab value="users">Users</Tabs.Tab> : null}
          {canWrite ? <Tabs.Tab value="api-keys">API keys</Tabs.Tab> : null}
          {hasTokens ? <Tabs.Tab value="tokens">Personal tokens</Tabs.Tab> : null}
          <Tabs.Tab value="audit">Audit log</Tabs.Tab>
        </Tabs.List>
        {canWrite ? (
          <Tabs.Panel value="users" pt="md">
            <UsersPanel />
          </Tabs.Panel>
        ) : null}
        {canWrite ? (
          <Tabs.Panel value="api-keys" pt="md">
            <CredentialsPanel kind="api-key" canWrite />
          </Tabs.Panel>
        ) : null}
        {hasTokens ? (
          <Tabs.Panel value="tokens" pt="md">
            {/* Personal tokens are the caller's own: any user, viewer too, manages them. */}
            <CredentialsPanel kind="token" canWrite />
          </Tabs.Panel>
        ) : null}
        <Tabs.Panel value="audit" pt="md">
          <AuditPanel />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
