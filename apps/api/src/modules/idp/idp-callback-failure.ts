import { AppError } from '@relay/core';
import type { IdpFailureReason } from './idp-login-failure';

/** What `?error=` of the sign-in page says after a failed identity-provider login: a reason, or the problem code. */
export type IdpCallbackErrorCode = IdpFailureReason | 'idp_not_configured' | 'identity_taken';

/**
 * Failures that show the callback belongs to no login this browser started (no login in its session, or one
 * whose `state` the callback does not carry): anyone can send them, as often as the API rate limit allows, so
 * they are logged and counted, never written to an organization's audit log. Every later failure belongs to a
 * login started for a known organization, which did reach its provider: that one is audited.
 */
export const UNAUDITED_REASONS: ReadonlySet<IdpFailureReason> = new Set(['no_login_in_progress', 'state_mismatch']);

/** The code of a failed callback for `?error=`; undefined for anything else (a database down stays a problem). */
export function callbackErrorCode(err: unknown): IdpCallbackErrorCode | undefined {
  if (!(err instanceof AppError)) return undefined;
  if (err.code === 'idp_login_failed') return err.details?.reason as IdpFailureReason;
  if (err.code === 'idp_not_configured' || err.code === 'identity_taken') return err.code;
  return undefined;
}

/** The dashboard's sign-in page. */
const SIGN_IN_PAGE = '/app/login';

/**
 * Where a failed login lands: the dashboard's sign-in page, which reads the reason from `?error=`; with the
 * dashboard page the login was for (its `redirect`, a path under /app) so the next attempt comes back to it.
 */
export function signInPageFor(code: IdpCallbackErrorCode, returnTo: string | undefined): string {
  const query = new URLSearchParams({ error: code });
  if (returnTo?.startsWith('/app/') && returnTo !== '/app/') query.set('redirect', returnTo.slice('/app'.length));
  return `${SIGN_IN_PAGE}?${query.toString()}`;
}
