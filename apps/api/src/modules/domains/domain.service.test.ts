import { AppError, DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { testPrincipal, unauditable } from '@relay/test-support';
import type { DomainCheck } from './dns-verifier';
import { createDomainService } from './domain.service';
import { useServiceDatabase } from '../service-test-kit';

const admin = testPrincipal();

const record = (ok: boolean): DomainCheck['cname'] => ({
  ok,
  name: 'n',
  expected: 'e',
  found: ok ? ['e'] : [],
  problem: ok ? null : 'missing',
});

const store = useServiceDatabase();
let dnsAnswers: { cname: boolean; txt: boolean };
const service = () =>
  createDomainService({
    repositories: store.repositories(),
    canonicalHost: 'relay.example.com',
    // DNS is the outside world here; the DNS client itself is tested against a real server.
    verify: async () => ({
      ok: dnsAnswers.cname && dnsAnswers.txt,
      cname: record(dnsAnswers.cname),
      txt: record(dnsAnswers.txt),
    }),
  });

describe('domain service', () => {
  it('creates a normalised pending domain and its audit entry', async () => {
    const created = await service().create(admin, 'Hooks.Example.ORG.');
    expect(created).toMatchObject({ domain: 'hooks.example.org', status: 'pending' });
    const [entry] = await store.auditOf(created.id);
    expect(entry).toMatchObject({
      action: 'domain.created',
      actorUserId: admin.userId,
      actorEmail: admin.email,
      organizationId: DEFAULT_ORGANIZATION_ID,
      metadata: { domain: 'hooks.example.org', mechanism: 'session' },
    });
  });

  it('writes neither the domain nor an entry when the audit entry cannot be written', async () => {
    const broken = unauditable(admin);
    await expect(service().create(broken, 'atomic.example.org')).rejects.toThrow();
    expect(await store.db.prisma.customDomain.findFirst({ where: { domain: 'atomic.example.org' } })).toBeNull();
  });

  it('refuses a taken domain with domain_taken and audits nothing more', async () => {
    await service().create(admin, 'taken.example.org');
    const before = await store.db.prisma.auditEntry.count();
    await expect(service().create(admin, 'taken.example.org')).rejects.toMatchObject({ code: 'domain_taken' });
    expect(await store.db.prisma.auditEntry.count()).toBe(before);
  });

  it('audits a failed verification, then activates on valid records', async () => {
    const created = await service().create(admin, 'verify.example.org');
    dnsAnswers = { cname: true, txt: false };
    const failure = await service()
      .verify(admin, created.id)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).code).toBe('domain_verification_failed');
    dnsAnswers = { cname: true, txt: true };
    expect(await service().verify(admin, created.id)).toMatchObject({ status: 'active' });
    expect((await store.auditOf(created.id)).map((e) => e.action)).toEqual([
      'domain.created',
      'domain.verification_failed',
      'domain.verified',
    ]);
  });

  it('deletes with an audit entry; an unknown id is not_found', async () => {
    const created = await service().create(admin, 'gone.example.org');
    await service().delete(admin, created.id);
    expect((await store.auditOf(created.id)).map((e) => e.action)).toEqual(['domain.created', 'domain.deleted']);
    await expect(service().delete(admin, created.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
