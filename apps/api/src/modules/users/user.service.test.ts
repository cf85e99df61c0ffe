import { SYSTEM_ACTOR } from '@relay/db';
import { DEFAULT_ORGANIZATION_ID, type Principal } from '@relay/core';
import { testPrincipal, unauditable } from '@relay/test-support';
import { createPasswordHasher } from '../../auth/passwords';
import { createUser, ensureInitialAdmin } from './create-user';
import { createUserService } from './user.service';
import { useServiceDatabase } from '../service-test-kit';

const admin = testPrincipal({ mechanism: 'basic' });
const broken: Principal = unauditable(admin);
const passwords = createPasswordHasher({ memoryKib: 1024, timeCost: 1 });

const store = useServiceDatabase();
const deps = () => ({ repositories: store.repositories(), passwords });
const service = () => createUserService(deps());
const newUser = (username: string, role: 'admin' | 'viewer' = 'viewer') => ({
  username,
  email: `${username}@example.com`,
  password: 'a-long-password-1',
  role,
});

describe('user service', () => {
  it('makes the initial admin once, audited as the install, and never again', async () => {
    const first = await ensureInitialAdmin(deps(), DEFAULT_ORGANIZATION_ID, newUser('root'));
    expect(first).toMatchObject({ username: 'root', role: 'admin' });
    expect(await store.auditOf(first!.id)).toMatchObject([
      {
        action: 'user.created',
        actorUserId: SYSTEM_ACTOR.id,
        actorEmail: SYSTEM_ACTOR.email,
        metadata: { username: 'root', role: 'admin', source: 'INITIAL_ADMIN_USERNAME' },
      },
    ]);
    expect(await ensureInitialAdmin(deps(), DEFAULT_ORGANIZATION_ID, newUser('root2'))).toBeNull();
  });

  it('adds a user with a hashed password and an audit entry naming the mechanism', async () => {
    const created = await service().create(admin, newUser('carol'));
    expect(created).toMatchObject({ username: 'carol', email: 'carol@example.com', role: 'viewer' });
    const stored = await store.db.prisma.user.findUnique({ where: { id: created.id } });
    expect(await passwords.verify(stored!.passwordHash!, 'a-long-password-1')).toBe(true);
    expect(await store.auditOf(created.id)).toMatchObject([
      {
        action: 'user.created',
        resourceType: 'user',
        actorUserId: admin.userId,
        metadata: { username: 'carol', role: 'viewer', mechanism: 'basic' },
      },
    ]);
    expect((await service().list(admin)).map((u) => u.username)).toEqual(['root', 'carol']);
  });

  it('refuses a taken username (users and operators alike) with username_taken', async () => {
    await expect(service().create(admin, newUser('carol'))).rejects.toMatchObject({ code: 'username_taken' });
    await store.db.prisma.platformOperator.create({ data: { username: 'op', passwordHash: 'x' } });
    await expect(createUser(deps(), DEFAULT_ORGANIZATION_ID, newUser('op'), { source: 'cli' })).rejects.toMatchObject({
      code: 'username_taken',
    });
  });

  it('writes no user when the audit entry cannot be written', async () => {
    await expect(service().create(broken, newUser('atomic'))).rejects.toThrow();
    expect(await store.db.prisma.user.findUnique({ where: { username: 'atomic' } })).toBeNull();
  });

  it('changes roles with an audit entry, never demoting the last admin', async () => {
    const dave = await service().create(admin, newUser('dave'));
    expect(await service().changeRole(admin, dave.id, 'admin')).toMatchObject({ role: 'admin' });
    expect((await store.auditOf(dave.id)).at(-1)).toMatchObject({
      action: 'user.role_updated',
      metadata: { from: 'viewer', to: 'admin', mechanism: 'basic' },
    });
    await service().changeRole(admin, dave.id, 'viewer');
    const root = (await service().list(admin)).find((u) => u.username === 'root')!;
    await expect(service().changeRole(admin, root.id, 'viewer')).rejects.toMatchObject({ code: 'last_admin' });
    await expect(service().changeRole(admin, admin.userId!, 'viewer')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('keeps the role when the audit entry of the change cannot be written', async () => {
    const erin = await service().create(admin, newUser('erin'));
    await expect(service().changeRole(broken, erin.id, 'admin')).rejects.toThrow();
    expect(await store.db.prisma.user.findUnique({ where: { id: erin.id } })).toMatchObject({ role: 'viewer' });
  });

  it("answers the caller's organization, with its usage of the billing period (the database's count)", async () => {
    expect(await service().organization(admin)).toEqual({
      id: DEFAULT_ORGANIZATION_ID,
      slug: 'default',
      name: 'Default organization',
      usage: {
        events_this_period: expect.any(Number),
        monthly_event_limit: null,
        period_start: expect.any(String),
        period_end: expect.any(String),
      },
    });
  });
});
