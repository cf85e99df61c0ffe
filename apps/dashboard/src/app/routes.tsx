import {
  createRootRouteWithContext,
  createRoute,
  lazyRouteComponent,
  Outlet,
  redirect,
  type RouteComponent,
} from '@tanstack/react-router';
import type { QueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { AppLayout } from './app-layout';
import { isOperator, isSignedIn, meQuery } from './session';
import { eventsListQuery } from '../pages/events/events-query';
import { eventsSearch } from '../pages/events/events-search';
import { loadPrefs, prefsUserOf, stripPage } from '../pages/events/events-prefs';

export interface RouterContext {
  queryClient: QueryClient;
}

// Route tree. Pages load lazily (one chunk each) so the first load carries only the shell.
// Helpers adding a page: one `createRoute` under `authedRoute` + an entry in `authedRoute.addChildren` + nav-items.ts.
// The explicit return type keeps the route tree's type independent of the pages' modules: pages use typed
// links into this tree, and inferring through their imports would be circular.
const lazyPage = <K extends string>(load: () => Promise<Record<K, RouteComponent>>, name: K): RouteComponent =>
  lazyRouteComponent(load, name);

const rootRoute = createRootRouteWithContext<RouterContext>()({ component: Outlet });

const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'login',
  validateSearch: z.object({
    redirect: z.string().max(2000).optional().catch(undefined),
    // A notice to show above the form, e.g. after a password was set with an admin's code.
    notice: z.enum(['password-set']).optional().catch(undefined),
    // Why a sign-in through the identity provider failed: the API's callback sends the browser here with it.
    error: z.string().max(64).optional().catch(undefined),
  }),
  component: lazyPage(() => import('../pages/login/login.page'), 'LoginPage'),
});

// Public like the sign-in: a user sets a password with the one-time code an admin issued (the link carries it).
const setPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'set-password',
  validateSearch: z.object({ code: z.string().max(200).optional().catch(undefined) }),
  component: lazyPage(() => import('../pages/account/set-password.page'), 'SetPasswordPage'),
});

// Every page but the sign-in needs a session: anonymous visitors go to the sign-in, remembering the page.
export const authedRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'authed',
  beforeLoad: async ({ context, location }) => {
    const me = await context.queryClient.ensureQueryData(meQuery);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- TanStack Router redirects are thrown by design
    if (!isSignedIn(me)) throw redirect({ to: '/login', search: { redirect: location.href } });
  },
  component: AppLayout,
});

const overviewRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: '/',
  // A platform operator has no organization to give an overview of: the platform console is theirs.
  beforeLoad: async ({ context }) => {
    const me = await context.queryClient.ensureQueryData(meQuery);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- TanStack Router redirects are thrown by design
    if (isOperator(me)) throw redirect({ to: '/platform' });
  },
  validateSearch: z.object({ window: z.enum(['1h', '24h', '7d', '30d']).default('24h').catch('24h') }),
  component: lazyPage(() => import('../pages/overview/overview.page'), 'OverviewPage'),
});

const eventsRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'events',
  validateSearch: eventsSearch,
  // Entering the page without any filter (the menu, a bookmark of /events) starts with the filters the user left it
  // with; a link that names filters (the overview's, a shared one) keeps its own, and so does "Clear" on the page.
  beforeLoad: async ({ context, search, cause }) => {
    if (cause !== 'enter' || Object.keys(stripPage(search)).length > 0) return;
    const me = await context.queryClient.ensureQueryData(meQuery);
    const filters = loadPrefs(prefsUserOf(me)).filters;
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- TanStack Router redirects are thrown by design
    if (filters && Object.keys(filters).length > 0) throw redirect({ to: '/events', search: filters, replace: true });
  },
  // Starts the page's fetch beside the download of its code rather than after it (not awaited: the page shows
  // its own loader).
  loaderDeps: ({ search }) => search,
  loader: ({ context, deps }) => void context.queryClient.prefetchQuery(eventsListQuery(deps)),
  component: lazyPage(() => import('../pages/events/events.page'), 'EventsPage'),
});

const eventDetailRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'events/$id',
  component: lazyPage(() => import('../pages/events/event-detail.page'), 'EventDetailPage'),
});

// Configuration pages: rules, send, settings, access, domains, and the operators' platform console.
const rulesRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'rules',
  component: lazyRouteComponent(() => import('../pages/rules/rules.page'), 'RulesPage'),
});

const ruleDetailRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'rules/$id',
  component: lazyRouteComponent(() => import('../pages/rules/rule-detail.page'), 'RuleDetailPage'),
});

const sendRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'send',
  component: lazyRouteComponent(() => import('../pages/send/send.page'), 'SendPage'),
});

const settingsRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'settings',
  component: lazyRouteComponent(() => import('../pages/settings/settings.page'), 'SettingsPage'),
});

const accessRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'access',
  component: lazyRouteComponent(() => import('../pages/access/access.page'), 'AccessPage'),
});

const domainsRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'domains',
  component: lazyRouteComponent(() => import('../pages/domains/domains.page'), 'DomainsPage'),
});

const platformRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'platform',
  component: lazyRouteComponent(() => import('../pages/platform/platform.page'), 'PlatformPage'),
});

const organizationRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'platform/organizations/$id',
  component: lazyRouteComponent(() => import('../pages/platform/organization-detail.page'), 'OrganizationDetailPage'),
});

// The caller's own account: the password change.
const accountRoute = createRoute({
  getParentRoute: () => authedRoute,
  path: 'account',
  component: lazyRouteComponent(() => import('../pages/account/account.page'), 'AccountPage'),
});

const configPages = [
  rulesRoute,
  ruleDetailRoute,
  sendRoute,
  settingsRoute,
  accessRoute,
  domainsRoute,
  platformRoute,
  organizationRoute,
  accountRoute,
];

export const routeTree = rootRoute.addChildren([
  loginRoute,
  setPasswordRoute,
  authedRoute.addChildren([overviewRoute, eventsRoute, eventDetailRoute, ...configPages]),
]);
