import { SYSTEM_ACTOR } from '@relay/db';
import { createPasswordHasher } from '../../auth/passwords';
import { createBootstrapService } from './bootstrap.service';
import { useServiceDatabase, useTestLimiter } from '../service-test-kit';

const TOKEN = 'platform-admin-token-0123456789abcdef';
const request = (bearer: string | undefined, username = 'root') => ({ bearer, username, ip: '127.0.0.1' });

const store = useServiceDatabase();
// The real limiter, 3 wrong tokens per IP; each test uses IPs of its own.
const limiter = useTestLimiter(3);
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
    limiter,
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

  it('answers too_many_attempts after 3 wrong tokens from one IP, before comparing even the right one', async () => {
    const from = (bearer: string) => ({ ...request(bearer), ip: '10.9.9.9' });
    for (let i = 0; i < 3; i++) {
      await expect(service(TOKEN).bootstrapOperator(from(`wrong-${i}`))).rejects.toMatchObject({
        code: 'unauthenticated',
      });
    }
    await expect(service(TOKEN).bootstrapOperator(from(TOKEN))).rejects.toMatchObject({
      code: 'too_many_attempts',
      details: { retry_after_seconds: expect.any(Number) },
    });
    // Another IP is not affected.
    await expect(service(TOKEN).bootstrapOperator({ ...request('wrong'), ip: '10.9.9.8' })).rejects.toMatchObject({
      code: 'unauthenticated',
    });
    expect(await store.db.prisma.platformOperator.count()).toBe(0);
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
      actorUserId: SYSTEM_ACTOR.id,
      actorEmail: SYSTEM_ACTOR.email,
      resourceId: created.operator.id,
      metadata: { username: 'root', ip: '127.0.0.1' },
    });
    await expect(service(TOKEN).bootstrapOperator(request(TOKEN, 'again'))).rejects.toMatchObject({
      code: 'operator_exists',
    });
    await expect(service(TOKEN).bootstrapOperator(request('wrong', 'again'))).rejects.toMatchObject({
      code: 'operator_exists',
    });
    // 2 + 4 refusals from the tests above (the limited attempt is not audited), and these 2.
    expect((await actions()).filter((a) => a === 'operator.bootstrap_refused')).toHaveLength(8);
  });
});
