import { AppError } from '@relay/core';
import { callbackErrorCode, signInPageFor } from './idp-callback-failure';

describe('a failed identity-provider login, for the sign-in page', () => {
  it('answers the reason of idp_login_failed, or the problem code, and nothing for other errors', () => {
    expect(callbackErrorCode(new AppError('idp_login_failed', 'x', { reason: 'provider_error' }))).toBe(
      'provider_error',
    );
    expect(callbackErrorCode(new AppError('idp_not_configured'))).toBe('idp_not_configured');
    expect(callbackErrorCode(new AppError('identity_taken'))).toBe('identity_taken');
    // A database or Redis failure stays a problem (5xx), never a sign-in page that blames the person.
    expect(callbackErrorCode(new AppError('database_unavailable'))).toBeUndefined();
    expect(callbackErrorCode(new Error('boom'))).toBeUndefined();
  });

  it('keeps the dashboard page the login was for as the sign-in page’s redirect', () => {
    expect(signInPageFor('state_mismatch', '/app/events?status=failed')).toBe(
      '/app/login?error=state_mismatch&redirect=%2Fevents%3Fstatus%3Dfailed',
    );
    // The dashboard's home, another path of the relay, or no login at all: nothing to come back to.
    for (const returnTo of ['/app/', '/docs', undefined]) {
      expect(signInPageFor('no_login_in_progress', returnTo)).toBe('/app/login?error=no_login_in_progress');
    }
  });
});
