import { randomBytes } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, openSecret, parseSecretKeys, sealedKeyId, type Principal } from '@relay/core';
import { testPrincipal, unauditable } from '@relay/test-support';
import { createRuleService, type RuleServiceDeps } from './rule.service';
import { useServiceDatabase, useTransformRunner } from '../service-test-kit';

const admin = testPrincipal();
// The audit insert fails on this actor id, after the rule write in the same transaction.
const broken: Principal = unauditable(admin);

const store = useServiceDatabase();
const transforms = useTransformRunner();
const keys = parseSecretKeys(`k1:${randomBytes(32).toString('base64')}`);
const service = (deps: Partial<RuleServiceDeps> = {}) =>
  createRuleService({
    repositories: store.repositories(),
    targetPolicy: { allowPrivate: false, allowlist: [] },
    secretKeys: keys,
    transforms,
    ...deps,
  });
const row = (id: string) => store.db.prisma.rule.findUniqueOrThrow({ where: { id } });
const input = (source: string) => ({ source, target_url: 'https://example.com/in', active: true });

describe('rule service', () => {
  it('creates a rule, shows no secret, and audits rule.created', async () => {
    const created = await service().create(admin, { ...input('created'), signing_secret: 'a-signing-secret-1234' });
    expect(created).toMatchObject({
      source: 'created',
      target_url: 'https://example.com/in',
      has_signing_secret: true,
    });
    expect(created).not.toHaveProperty('signing_secret');
    expect(await store.auditOf(created.id)).toEqual([
      expect.objectContaining({
        action: 'rule.created',
        resourceType: 'rule',
        actorUserId: admin.userId,
        organizationId: DEFAULT_ORGANIZATION_ID,
        metadata: {
          name: 'created',
          source: 'created',
          target_url: 'https://example.com/in',
          active: true,
          mechanism: 'session',
        },
      }),
    ]);
  });

  it('writes neither the rule nor an entry when the audit entry cannot be written', async () => {
    await expect(service().create(broken, input('atomic'))).rejects.toThrow();
    expect(await store.db.prisma.rule.findFirst({ where: { source: 'atomic' } })).toBeNull();
  });

  it('refuses a second active rule for a source and a refused target, auditing nothing', async () => {
    await service().create(admin, input('twice'));
    const before = await store.db.prisma.auditEntry.count();
    await expect(service().create(admin, input('twice'))).rejects.toMatchObject({ code: 'active_provider_exists' });
    await expect(
      service().create(admin, { ...input('private'), target_url: 'http://127.0.0.1/x' }),
    ).rejects.toMatchObject({ code: 'target_url_rejected' });
    expect(await store.db.prisma.rule.count({ where: { source: { in: ['twice', 'private'] } } })).toBe(1);
    expect(await store.db.prisma.auditEntry.count()).toBe(before);
  });

  it('updates with the changed field names (never the secret) and rolls back with its entry', async () => {
    const created = await service().create(admin, input('changing'));
    await expect(service().update(broken, created.id, { active: false })).rejects.toThrow();
    expect(await service().get(admin, created.id)).toMatchObject({ active: true });
    const updated = await service().update(admin, created.id, { active: false, signing_secret: 'another-secret-1234' });
    expect(updated).toMatchObject({ active: false, has_signing_secret: true });
    const entries = await store.auditOf(created.id);
    expect(entries.map((e) => e.action)).toEqual(['rule.created', 'rule.updated']);
    expect(entries[1]!.metadata).toEqual({ changed: ['active', 'signing_secret'], mechanism: 'session' });
  });

  it('refuses an update to an unknown rule or into a conflict', async () => {
    const unknown = '00000000-0000-7000-8000-00000000dead';
    await expect(service().update(admin, unknown, { active: true })).rejects.toMatchObject({ code: 'not_found' });
    await service().create(admin, input('taken'));
    const other = await service().create(admin, { ...input('other'), active: false });
    await expect(service().update(admin, other.id, { source: 'taken', active: true })).rejects.toMatchObject({
      code: 'active_provider_exists',
    });
    expect((await store.auditOf(other.id)).map((e) => e.action)).toEqual(['rule.created']);
  });

  it('deletes with rule.deleted, keeps it when the entry fails, and answers not_found after', async () => {
    const created = await service().create(admin, input('gone'));
    await expect(service().delete(broken, created.id)).rejects.toThrow();
    expect(await service().get(admin, created.id)).toMatchObject({ source: 'gone' });
    await service().delete(admin, created.id);
    const entries = await store.auditOf(created.id);
    expect(entries.map((e) => e.action)).toEqual(['rule.created', 'rule.deleted']);
    expect(entries[1]!.metadata).toEqual({ source: 'gone', mechanism: 'session' });
    await expect(service().delete(admin, created.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(service().get(admin, created.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it("lists only the caller's organization's rules", async () => {
    const org = await store.db.prisma.organization.create({ data: { slug: 'elsewhere', name: 'Elsewhere' } });
    const outsider = { ...admin, orgId: org.id } as Principal;
    expect(await service().list(outsider)).toEqual([]);
    expect((await service().list(admin)).length).toBeGreaterThan(0);
  });

  it('stores signing secrets sealed with the current key, never in plaintext', async () => {
    const created = await service().create(admin, { ...input('sealed'), signing_secret: 'plain-secret-value-1' });
    const stored = await row(created.id);
    expect(stored.signingSecret).not.toContain('plain-secret-value-1');
    expect(sealedKeyId(stored.signingSecret!)).toBe('k1');
    expect(openSecret(keys, stored.signingSecret!)).toBe('plain-secret-value-1');
    await service().update(admin, created.id, { signing_secret: 'plain-secret-value-2' });
    expect(openSecret(keys, (await row(created.id)).signingSecret!)).toBe('plain-secret-value-2');
  });

  it('refuses to store a secret without SECRET_ENCRYPTION_KEYS, writing nothing', async () => {
    const keyless = service({ secretKeys: undefined });
    await expect(
      keyless.create(admin, { ...input('keyless'), signing_secret: 'plain-secret-value-1' }),
    ).rejects.toMatchObject({ code: 'secrets_not_configured' });
    expect(await store.db.prisma.rule.count({ where: { source: 'keyless' } })).toBe(0);
    // Rules without a secret need no key.
    expect(await keyless.create(admin, input('keyless'))).toMatchObject({ has_signing_secret: false });
  });

  it('rotates: the old secret keeps signing until the window ends, audited without secrets', async () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const rotating = service({ now: () => now });
    const created = await rotating.create(admin, { ...input('rotating'), signing_secret: 'first-secret-value-1' });
    const rotated = await rotating.rotateSecret(admin, created.id, {
      signing_secret: 'second-secret-value-2',
      previous_secret_valid_for_seconds: 3600,
    });
    const stored = await row(created.id);
    expect([openSecret(keys, stored.signingSecret!), openSecret(keys, stored.previousSigningSecret!)]).toEqual([
      'second-secret-value-2',
      'first-secret-value-1',
    ]);
    expect(stored.previousSecretExpiresAt).toEqual(new Date('2026-11-23T13:00:00Z'));
    // The window lies in the past for the real clock of the view: it shows no active previous secret.
    expect(rotated).toMatchObject({ has_signing_secret: true, previous_secret_expires_at: null });
    const entry = (await store.auditOf(created.id)).at(-1)!;
    expect(entry).toMatchObject({ action: 'rule.secret_rotated' });
    expect(entry.metadata).toMatchObject({ previous_secret_expires_at: '2026-11-23T13:00:00.000Z' });
    expect(JSON.stringify(entry)).not.toContain('secret-value');
    // A window of 0 retires the replaced secret at once; a PATCH of the secret replaces both.
    await rotating.rotateSecret(admin, created.id, {
      signing_secret: 'third-secret-value-3',
      previous_secret_valid_for_seconds: 0,
    });
    expect(await row(created.id)).toMatchObject({ previousSigningSecret: null, previousSecretExpiresAt: null });
    await expect(
      rotating.rotateSecret(admin, '00000000-0000-7000-8000-00000000dead', {
        signing_secret: 'x-secret-value-12345',
        previous_secret_valid_for_seconds: 60,
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('keeps the outbound header list of a rule', async () => {
    const created = await service().create(admin, {
      ...input('outbound'),
      outbound_headers: { forward: ['authorization'] },
    });
    const none = { set: {}, remove: [] };
    expect(created.outbound_headers).toEqual({ forward: ['authorization'], ...none });
    const cleared = await service().update(admin, created.id, { outbound_headers: { forward: [] } });
    expect(cleared.outbound_headers).toEqual({ forward: [], ...none });
    expect((await service().create(admin, input('no-outbound'))).outbound_headers).toEqual({ forward: [], ...none });
  });
});
