import { createPasswordHasher } from '../../auth/passwords';
import { createBootstrapService } from './bootstrap.service';
import { useServiceDatabase } from '../service-test-kit';

const TOKEN = 'platform-admin-token-0123456789';
const request = (bearer: string | undefined, username = 'root') => ({ bearer, username, ip: '127.0.0.1' });

const store = useServiceDatabase();
const service = (adminToken: string | undefined, auditFails = false) => {
  const repositories = store.repositories();
  return createBootstrapService({
    repositories: auditFails
      ? {
          ...repositories,
          transaction: (work) =>
            repositories.transaction((tx) =>
              work({ ...tx, audit: { ...tx.audit, record: () => Promise.reject(new Error('audit down')) } }),
            ),
        }
      : repositories,
    passwords: createPasswordHasher({ memoryKib: 1024, timeCost: 1 }),
    adminToken,
  });
};
const actions = async () =>
  (await store.db.prisma.auditEntry.findMany({ orderBy: { createdAt: 'asc' } })).map((e) => e.action);

describe('operator bootstrap service', () => {
  it('is disabled (not_found) without PLATFORM_ADMIN_TOKEN, and audits nothing then', async () => {
    await expect(service(undefined).bootstrapOperator(request(TOKEN))).rejects.toMatchObject({ code: 'not_found' });
    expect(await actions()).toEqual([]);
  });

  it('refuses a missing or wrong token, and audits each refusal', async () => {
    await expect(service(TOKEN).bootstrapOperator(request(undefined))).rejects.toMatchObject({
      code: 'unauthenticated',
    });
    await expect(service(TOKEN).bootstrapOperator(request('wrong'))).rejects.toMatchObject({ code: 'unauthenticated' });
    const refusals = await store.db.prisma.auditEntry.findMany({ where: { action: 'operator.bootstrap_refused' } });
    expect(refusals.map((e) => e.metadata)).toEqual([
      { username: 'root', reason: 'bad_token', ip: '127.0.0.1' },
      { username: 'root', reason: 'bad_token', ip: '127.0.0.1' },
    ]);
  });

  it('creates no operator when its audit entry cannot be written', async () => {
    await expect(service(TOKEN, true).bootstrapOperator(request(TOKEN))).rejects.toThrow('audit down');
    expect(await store.db.prisma.platformOperator.count()).toBe(0);
  });

  it('creates the first operator with its audit entry, then answers operator_exists whatever the token', async () => {
    const created = await service(TOKEN).bootstrapOperator(request(TOKEN));
    expect(created).toEqual({ operator: { id: expect.any(String), username: 'root' }, password: expect.any(String) });
    const entry = await store.db.prisma.auditEntry.findFirst({ where: { action: 'operator.bootstrapped' } });
    expect(entry).toMatchObject({
      organizationId: null,
      actorUserId: null,
      resourceId: created.operator.id,
      metadata: { username: 'root', ip: '127.0.0.1' },
    });
    await expect(service(TOKEN).bootstrapOperator(request(TOKEN, 'again'))).rejects.toMatchObject({
      code: 'operator_exists',
    });
    await expect(service(TOKEN).bootstrapOperator(request('wrong', 'again'))).rejects.toMatchObject({
      code: 'operator_exists',
    });
    expect((await actions()).filter((a) => a === 'operator.bootstrap_refused')).toHaveLength(4);
  });
});
