import {
  ActionIcon,
  AppShell,
  Burger,
  Group,
  Text,
  Title,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconKeyboard, IconLogout, IconMoon, IconSun } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Outlet, useNavigate, useRouterState } from '@tanstack/react-router';
import { Suspense } from 'react';
import { client } from './api-client';
import { useKeyboardShortcuts } from './keyboard-shortcuts';
import { KeyboardShortcutsHelp } from './keyboard-shortcuts-help';
import { navItems } from './nav-items';
import { useSession } from './session';
import { NavLinkLink } from '../components/links';
import { PageLoader } from '../components/page-loader';

function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light');
  const next = computed === 'dark' ? 'light' : 'dark';
  return (
    <Tooltip label={`Switch to ${next} mode`}>
      <ActionIcon
        variant="default"
        size="lg"
        aria-label={`Switch to ${next} mode`}
        onClick={() => setColorScheme(next)}
      >
        {computed === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}

function LogoutButton() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const logout = async () => {
    // Signing out of a session that is already gone is no failure: the sign-in page follows either way.
    await client.POST('/api/auth/logout').catch(() => undefined);
    queryClient.clear();
    await navigate({ to: '/login', search: {} });
  };
  return (
    <Tooltip label="Sign out">
      <ActionIcon variant="default" size="lg" aria-label="Sign out" onClick={() => void logout()}>
        <IconLogout size={18} />
      </ActionIcon>
    </Tooltip>
  );
}

/** The signed-in frame: header (who, colour scheme, sign out) and the role-aware navigation bar. */
export function AppLayout() {
  const { me } = useSession();
  const [opened, { toggle }] = useDisclosure();
  const [helpOpened, help] = useDisclosure();
  const navigate = useNavigate();
  useKeyboardShortcuts({ me, go: (to) => void navigate({ to: to as '/' }), openHelp: help.open });
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const who = me.user?.username ?? me.operator?.username ?? 'signed in';
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={4}>Webhook relay</Title>
            {me.organization?.name ? <Text c="dimmed">{me.organization.name}</Text> : null}
          </Group>
          <Group gap="xs">
            <Text size="sm" c="dimmed" data-testid="who">
              {who}
              {me.role ? ` (${me.role})` : ''}
            </Text>
            <Tooltip label="Keyboard shortcuts (?)">
              <ActionIcon variant="default" size="lg" aria-label="Keyboard shortcuts" onClick={help.open}>
                <IconKeyboard size={18} />
              </ActionIcon>
            </Tooltip>
            <ColorSchemeToggle />
            <LogoutButton />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main navigation">
        {navItems
          .filter((item) => item.visible(me))
          .map((item) => (
            <NavLinkLink
              key={item.to}
              to={item.to as '/'}
              label={item.label}
              leftSection={<item.icon size={18} />}
              active={item.to === '/' ? pathname === '/' : pathname.startsWith(item.to)}
            />
          ))}
      </AppShell.Navbar>
      <KeyboardShortcutsHelp me={me} opened={helpOpened} onClose={help.close} />
      <AppShell.Main>
        <Suspense fallback={<PageLoader />}>
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
