import { type Principal } from '@relay/core';
import { testPrincipal, unauditable } from '@relay/test-support';
import { createHookService } from './hook.service';
import { createRuleService } from './rule.service';
import { useServiceDatabase, useTransformRunner } from '../service-test-kit';

const key = testPrincipal({
  kind: 'api_key',
  mechanism: 'token',
  scopes: ['rules:read', 'rules:write'],
  userId: null,
  username: null,
  email: null,
  credentialId: '00000000-0000-7000-8000-0000000000c1',
});
// The audit insert fails on this actor id, after the hook write in the same transaction.
const broken: Principal = unauditable(key);
const unknown = '00000000-0000-7000-8000-00000000dead';

const store = useServiceDatabase();
const transforms = useTransformRunner();
let ruleId: string;
const deps = () => ({
  repositories: store.repositories(),
  targetPolicy: { allowPrivate: false, allowlist: [] },
  secretKeys: undefined,
  transforms,
});
const service = () => createHookService(deps());
const hookInput = { target_url: 'https://example.com/hook', trigger: 'provider_failed' as const, active: true };

beforeAll(async () => {
  ruleId = (
    await createRuleService(deps()).create(key, { source: 'src', target_url: 'https://example.com/', active: true })
  ).id;
});

describe('hook service', () => {
  it('attaches a hook and audits hook.created with the api key', async () => {
    const hook = await service().create(key, ruleId, hookInput);
    expect(hook).toMatchObject({ rule_id: ruleId, trigger: 'provider_failed', active: true });
    expect(await store.auditOf(hook.id)).toEqual([
      expect.objectContaining({
        action: 'hook.created',
        resourceType: 'hook',
        metadata: {
          rule_id: ruleId,
          name: hook.name,
          trigger: 'provider_failed',
          target_url: 'https://example.com/hook',
          api_key_id: key.credentialId,
        },
      }),
    ]);
    expect((await service().list(key, ruleId)).map((h) => h.id)).toContain(hook.id);
  });

  it('writes no hook when the audit entry cannot be written', async () => {
    const before = await store.db.prisma.hook.count();
    await expect(service().create(broken, ruleId, hookInput)).rejects.toThrow();
    expect(await store.db.prisma.hook.count()).toBe(before);
  });

  it('answers not_found for an unknown rule and target_url_rejected for a refused target', async () => {
    await expect(service().list(key, unknown)).rejects.toMatchObject({ code: 'not_found' });
    await expect(service().create(key, unknown, hookInput)).rejects.toMatchObject({ code: 'not_found' });
    await expect(service().create(key, ruleId, { ...hookInput, target_url: 'http://10.0.0.1/' })).rejects.toMatchObject(
      { code: 'target_url_rejected' },
    );
  });

  it('updates with the changed field names, and rolls back with its entry', async () => {
    const hook = await service().create(key, ruleId, hookInput);
    await expect(service().update(broken, ruleId, hook.id, { active: false })).rejects.toThrow();
    expect(await store.db.prisma.hook.findUnique({ where: { id: hook.id } })).toMatchObject({ active: true });
    expect(await service().update(key, ruleId, hook.id, { active: false })).toMatchObject({ active: false });
    const entries = await store.auditOf(hook.id);
    expect(entries.map((e) => e.action)).toEqual(['hook.created', 'hook.updated']);
    expect(entries[1]!.metadata).toEqual({ rule_id: ruleId, changed: ['active'], api_key_id: key.credentialId });
    await expect(service().update(key, ruleId, unknown, { active: true })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('deletes with hook.deleted, keeps it when the entry fails, and answers not_found after', async () => {
    const hook = await service().create(key, ruleId, hookInput);
    await expect(service().delete(broken, ruleId, hook.id)).rejects.toThrow();
    expect(await store.db.prisma.hook.findUnique({ where: { id: hook.id } })).not.toBeNull();
    await service().delete(key, ruleId, hook.id);
    expect((await store.auditOf(hook.id)).map((e) => e.action)).toEqual(['hook.created', 'hook.deleted']);
    await expect(service().delete(key, ruleId, hook.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
