import { DEFAULT_ORGANIZATION_ID, SCOPES, type Principal } from '@relay/core';
import type { LoginLimiter } from '../../auth/login-limiter';
import { createPasswordHasher } from '../../auth/passwords';
import { createSessionService } from './session.service';
import { useServiceDatabase } from '../service-test-kit';

const passwords = createPasswordHasher({ memoryKib: 1024, timeCost: 1 });
// The limiter's counting lives in Redis and is tested end to end; here only its answers matter.
const failures = new Map<string, number>();
const limiter: LoginLimiter = {
  check: async (username) => ((failures.get(username) ?? 0) >= 3 ? { ok: false, retryAfterSeconds: 42 } : { ok: true }),
  recordFailure: async (username) => void failures.set(username, (failures.get(username) ?? 0) + 1),
  reset: async (username) => void failures.delete(username),
};

const store = useServiceDatabase();
let userId: string;
const service = () =>
  createSessionService({
    repositories: store.repositories(),
    passwords,
    limiter,
    secureCookie: true,
  });
const failuresAudited = () => store.db.prisma.auditEntry.findMany({ where: { action: 'auth.login_failed' } });

beforeAll(async () => {
  const repos = store.repositories();
  const passwordHash = await passwords.hash('dana-password-1');
  userId = (
    await repos.users.create(DEFAULT_ORGANIZATION_ID, {
      username: 'dana',
      email: 'd@x.io',
      role: 'admin',
      passwordHash,
    })
  ).id;
  await store.db.prisma.platformOperator.create({ data: { username: 'otto', passwordHash } });
});

describe('session service', () => {
  it('logs a user or an operator in, and resets the failure count', async () => {
    failures.set('dana', 2);
    const login = await service().login('dana', 'dana-password-1', '10.0.0.1');
    expect(login).toMatchObject({ user: { userId, orgId: DEFAULT_ORGANIZATION_ID, mechanism: 'session' } });
    expect(failures.has('dana')).toBe(false);
    expect(await service().login('otto', 'dana-password-1', undefined)).toMatchObject({
      operator: { username: 'otto' },
    });
  });

  it('audits a failure under the organization of a known username, platform-level otherwise', async () => {
    await expect(service().login('dana', 'wrong', '10.0.0.2')).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(service().login('nobody', 'wrong', '10.0.0.2')).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(await failuresAudited()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          organizationId: DEFAULT_ORGANIZATION_ID,
          actorUserId: userId,
          resourceId: userId,
          metadata: { username: 'dana', ip: '10.0.0.2' },
        }),
        expect.objectContaining({
          organizationId: null,
          actorUserId: null,
          metadata: { username: 'nobody', ip: '10.0.0.2' },
        }),
      ]),
    );
  });

  it('answers a limited login without checking the password or auditing', async () => {
    failures.set('dana', 3);
    const before = (await failuresAudited()).length;
    expect(await service().login('dana', 'dana-password-1', '10.0.0.3')).toEqual({
      limited: true,
      retryAfterSeconds: 42,
    });
    expect(await failuresAudited()).toHaveLength(before);
    failures.clear();
  });

  it('says who is calling, with every scope spelled out for a session', async () => {
    const principal: Principal = {
      kind: 'user',
      mechanism: 'session',
      orgId: DEFAULT_ORGANIZATION_ID,
      role: 'admin',
      scopes: 'all',
      userId,
      username: 'dana',
      email: 'd@x.io',
      credentialId: null,
    };
    expect(await service().me(principal)).toEqual({
      mechanism: 'session',
      kind: 'user',
      user: { id: userId, username: 'dana', email: 'd@x.io', role: 'admin' },
      organization: { id: DEFAULT_ORGANIZATION_ID, slug: 'default', name: 'Default organization' },
      role: 'admin',
      scopes: [...SCOPES],
    });
    expect(service().cookie.name).toBe('__Host-relay_session');
  });
});
