// Principals for tests of code that acts for someone (services, audit entries); `@relay/core` only, so
// every package's and app's tests can use them.
import { DEFAULT_ORGANIZATION_ID, type Principal } from '@relay/core';

/** An admin of the default organization signed in with a session, unless overridden. */
export function testPrincipal(overrides: Partial<Principal> = {}): Principal {
  return {
    kind: 'user',
    mechanism: 'session',
    orgId: DEFAULT_ORGANIZATION_ID,
    role: 'admin',
    scopes: 'all',
    userId: '00000000-0000-7000-8000-0000000000a1',
    username: 'ada',
    email: 'ada@example.com',
    credentialId: null,
    ...overrides,
  };
}

/** A principal whose audit entry cannot be written (actor_user_id is a uuid column): for atomicity tests. */
export const unauditable = (principal: Principal): Principal => ({ ...principal, userId: 'not-a-uuid' });
