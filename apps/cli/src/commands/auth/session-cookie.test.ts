import { describe, expect, it } from 'vitest';
import { sessionCookieOf } from './session-cookie';

const now = new Date('2026-11-23T10:00:00Z');

describe('sessionCookieOf', () => {
  it('keeps only the name=value pair and computes the expiry (Max-Age over Expires)', () => {
    expect(
      sessionCookieOf(['relay_session=s%3Aabc.def; Path=/; Expires=Mon, 23 Nov 2026 18:00:00 GMT; HttpOnly'], now),
    ).toEqual({ cookie: 'relay_session=s%3Aabc.def', expiresAt: '2026-11-23T18:00:00.000Z' });
    expect(
      sessionCookieOf(['__Host-relay_session=x; Max-Age=60; Expires=Mon, 23 Nov 2026 18:00:00 GMT; Secure'], now),
    ).toEqual({ cookie: '__Host-relay_session=x', expiresAt: '2026-11-23T10:01:00.000Z' });
  });

  it('picks the session cookie among others, and answers undefined without any', () => {
    expect(sessionCookieOf(['other=1; Path=/', 'relay_session=y; Path=/'], now)?.cookie).toBe('relay_session=y');
    expect(sessionCookieOf([], now)).toBeUndefined();
  });
});
