import { SYSTEM_ACTOR } from '@relay/db';
import { DEFAULT_ORGANIZATION_ID, SCOPES, type Principal } from '@relay/core';
import { ACCESS_TABLE } from '../../composition/catalog';
import { createPasswordHasher } from '../../auth/passwords';
import { createSessionService } from './session.service';
import { useServiceDatabase, useTestLimiter } from '../service-test-kit';

const passwords = createPasswordHasher({ memoryKib: 1024, timeCost: 1 });
// The real limiter on the machine's Redis: three attempts per username + IP.
const limiter = useTestLimiter(3);
const store = useServiceDatabase();
let userId: string;
const service = () =>
  createSessionService({
    repositories: store.repositories(),
    passwords,
    limiter,
    secureCookie: true,
    accessRules: Object.values(ACCESS_TABLE),
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
  it('logs a user or an operator in, and a success starts the count over', async () => {
    for (let i = 0; i < 2; i++) await expect(service().login('dana', 'wrong', '10.0.0.1')).rejects.toThrow();
    const login = await service().login('dana', 'dana-password-1', '10.0.0.1');
    expect(login).toMatchObject({ user: { userId, orgId: DEFAULT_ORGANIZATION_ID, mechanism: 'session' } });
    // Without the reset the third failure would be followed by a refusal.
    for (let i = 0; i < 3; i++) await expect(service().login('dana', 'wrong', '10.0.0.1')).rejects.toThrow();
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
          metadata: { username: 'dana', ip: '10.0.0.2', mechanism: 'session' },
        }),
        expect.objectContaining({
          organizationId: null,
          actorUserId: SYSTEM_ACTOR.id,
          actorEmail: SYSTEM_ACTOR.email,
          metadata: { username: 'nobody', ip: '10.0.0.2', mechanism: 'session' },
        }),
      ]),
    );
  });

  it('answers a limited login without checking the password or auditing', async () => {
    for (let i = 0; i < 3; i++) await expect(service().login('dana', 'wrong', '10.0.0.3')).rejects.toThrow();
    const before = (await failuresAudited()).length;
    expect(await service().login('dana', 'dana-password-1', '10.0.0.3')).toEqual({
      limited: true,
      retryAfterSeconds: expect.any(Number),
    });
    expect(await failuresAudited()).toHaveLength(before);
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

  it('lists only the scopes a principal can actually use: its role and its key both allow them', async () => {
    const viewer: Principal = {
      kind: 'user',
      mechanism: 'basic',
      orgId: DEFAULT_ORGANIZATION_ID,
      role: 'viewer',
      scopes: 'all',
      userId,
      username: 'dana',
      email: 'd@x.io',
      credentialId: null,
    };
    expect((await service().me(viewer)).scopes).toEqual(['events:read', 'rules:read']);
    const key: Principal = {
      ...viewer,
      kind: 'api_key',
      mechanism: 'token',
      role: 'admin',
      scopes: ['rules:write', 'events:read'],
      userId: null,
      username: null,
      email: null,
      credentialId: userId,
    };
    expect((await service().me(key)).scopes).toEqual(['events:read', 'rules:write']);
  });
});
