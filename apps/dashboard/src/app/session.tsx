import { queryOptions, useSuspenseQuery } from '@tanstack/react-query';
import { accessOf, dataOf, type MemberOperation } from '@relay/client';
import { client } from './api-client';

/**
 * `GET /api/auth/me`: who is signed in (`mechanism: 'none'` when nobody is). The API answers one of three
 * shapes (anonymous, member, operator); this is their common reading.
 */
export interface Me {
  /** 'none' (anonymous), 'session', or a token mechanism. */
  mechanism: string;
  /** For a session: 'password' or 'idp' (signed in through the identity provider). */
  login_method?: 'password' | 'idp';
  /** 'operator' for a platform operator; null when anonymous. */
  kind?: string | null;
  user?: { id: string; username: string; email: string; role: string } | null;
  operator?: { id: string; username: string };
  organization?: { id: string; slug?: string; name?: string } | null;
  role?: 'viewer' | 'admin' | null;
  scopes: readonly unknown[];
}

export const meQuery = queryOptions({
  queryKey: ['me'],
  queryFn: async (): Promise<Me> => dataOf(client.GET('/api/auth/me')),
  staleTime: 60_000,
});

export const isSignedIn = (me: Me) => me.mechanism !== 'none';
export const isOperator = (me: Me) => me.kind === 'operator';
/** Write controls are shown only to admins; the API refuses a viewer's writes anyway. */
export const canWrite = (me: Me) => me.role === 'admin';
/**
 * Whether the principal may call an operation, by its row of the API's access map (the typed client's, never
 * restated here): the role is enough and, when the row names a scope, the principal can use it. The API decides
 * anyway; this only leaves out controls that would be refused.
 */
export function canCall(me: Me, operation: MemberOperation): boolean {
  const access = accessOf(operation);
  if (access === 'public') return true;
  if (access.role === 'admin' && me.role !== 'admin') return false;
  if (access.role === 'viewer' && !me.role) return false;
  return access.scope === null || me.scopes.includes(access.scope);
}
/** Where a fresh sign-in lands: operators in the platform console, everyone else in their organization. */
export const homeOf = (me: Me) => (isOperator(me) ? '/platform' : '/events');

/** The signed-in principal; the authenticated layout route has already loaded it. */
export function useSession() {
  const { data } = useSuspenseQuery(meQuery);
  return {
    me: data,
    canWrite: canWrite(data),
    isOperator: isOperator(data),
    can: (operation: MemberOperation) => canCall(data, operation),
  };
}

/** Where the router is mounted: its internal paths (`/events`) are `/app/events` in the address bar. */
export const APP_BASE = '/app';

/** Only same-app paths are followed after sign-in (never another origin: no open redirect). */
export const safeRedirect = (value: string | undefined) =>
  value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : undefined;
