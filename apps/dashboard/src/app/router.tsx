import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { createRouter, type RouterHistory } from '@tanstack/react-router';
import { ApiError } from './api-client';
import { routeTree } from './routes';
import { PageLoader } from '../components/page-loader';
import { ProblemAlert } from '../components/problem-alert';

// A 401 on any request (the session expired or was revoked) sends to the sign-in, remembering the page.
function onUnauthorized(error: unknown, router: AppRouter) {
  if (!(error instanceof ApiError) || error.status !== 401) return;
  const here = router.state.location;
  if (here.pathname === '/login') return;
  router.options.context.queryClient.removeQueries({ queryKey: ['me'] });
  void router.navigate({ to: '/login', search: { redirect: here.href } });
}

/** The query cache and router of one app instance (tests build their own with a memory history). */
export function createAppRouter(options: { history?: RouterHistory } = {}) {
  const queryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (error) => onUnauthorized(error, router) }),
    mutationCache: new MutationCache({ onError: (error) => onUnauthorized(error, router) }),
    defaultOptions: {
      queries: {
        // A problem answer (4xx) will not change on retry.
        retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
        refetchOnWindowFocus: false,
      },
    },
  });
  // The caches' callbacks run only after a request, long after `router` is set.
  const router = buildRouter(queryClient, options.history);
  return router;
}

function buildRouter(queryClient: QueryClient, history?: RouterHistory) {
  return createRouter({
    routeTree,
    basepath: '/app',
    context: { queryClient },
    defaultPreload: 'intent',
    defaultPendingComponent: PageLoader,
    defaultErrorComponent: ({ error }) => <ProblemAlert error={error} />,
    ...(history ? { history } : {}),
  });
}

export type AppRouter = ReturnType<typeof buildRouter>;

declare module '@tanstack/react-router' {
  interface Register {
    router: AppRouter;
  }
}
