import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { testPrincipal, unauditable } from '@relay/test-support';
import { createPasswordHasher } from '../../auth/passwords';
import { useServiceDatabase, useTestLimiter } from '../service-test-kit';
import { createPasswordService } from './password.service';
import { createUserLifecycleService } from './user-lifecycle.service';

const passwords = createPasswordHasher({ memoryKib: 1024, timeCost: 1 });
const store = useServiceDatabase();
const limiter = useTestLimiter(3);
const NEW = 'Brand-new-password-1';

const service = () =>
  createPasswordService({
    repositories: store.repositories(),
    passwords,
    limiter,
    publicBaseUrl: 'https://relay.example/base/',
  });
const lifecycle = () => createUserLifecycleService({ repositories: store.repositories() });

async function seed(username: string, role: 'admin' | 'viewer' = 'viewer') {
  return store.repositories().users.create(DEFAULT_ORGANIZATION_ID, {
    username,
    email: `${username}@example.com`,
    role,
    passwordHash: await passwords.hash(`${username}-password-1`),
  });
}
const asUser = (user: { id: string; username: string; email: string }) =>
  testPrincipal({ userId: user.id, username: user.username, email: user.email, role: 'viewer' });

describe('account services', () => {
  it('changes nothing when the audit entry of a password change cannot be written', async () => {
    const pam = await seed('pam');
    const before = await store.db.prisma.user.findUniqueOrThrow({ where: { id: pam.id } });
    // The write goes by user id; the audit entry's organization id is not a uuid, so only the entry fails.
    const broken = { ...asUser(pam), orgId: 'not-a-uuid' as typeof DEFAULT_ORGANIZATION_ID };
    await expect(service().change(broken, { current_password: 'pam-password-1', new_password: NEW })).rejects.toThrow();
    const after = await store.db.prisma.user.findUniqueOrThrow({ where: { id: pam.id } });
    expect(after).toMatchObject({ passwordHash: before.passwordHash, sessionsValidAfter: null });
  });

  it('locks out a guessed current password like a login, even for the right one', async () => {
    const lou = await seed('lou');
    for (let i = 0; i < 3; i++)
      await expect(
        service().change(asUser(lou), { current_password: `guess-${i}`, new_password: NEW }, '10.0.0.9'),
      ).rejects.toMatchObject({ code: 'wrong_password' });
    await expect(
      service().change(asUser(lou), { current_password: 'lou-password-1', new_password: NEW }, '10.0.0.9'),
    ).rejects.toMatchObject({ code: 'too_many_attempts' });
  });

  it('builds the set-password link under PUBLIC_BASE_URL and writes no code when the audit fails', async () => {
    const kit = await seed('kit');
    const issued = await service().issueReset(testPrincipal(), kit.id);
    expect(issued.link).toBe(`https://relay.example/app/set-password?code=${issued.code}`);
    await expect(service().issueReset(unauditable(testPrincipal()), kit.id)).rejects.toThrow();
    expect(await store.db.prisma.passwordReset.count({ where: { userId: kit.id } })).toBe(1);
  });

  it('keeps a user enabled when the audit entry of the disable cannot be written', async () => {
    const dee = await seed('dee');
    await expect(lifecycle().disable(unauditable(testPrincipal()), dee.id)).rejects.toThrow();
    expect((await store.db.prisma.user.findUniqueOrThrow({ where: { id: dee.id } })).disabledAt).toBeNull();
    await expect(lifecycle().remove(unauditable(testPrincipal()), dee.id)).rejects.toThrow();
    expect(await store.db.prisma.user.count({ where: { id: dee.id } })).toBe(1);
  });
});
