import { testPrincipal } from '@relay/test-support';
import { createHookService } from './hook.service';
import { createRuleService } from './rule.service';
import { useServiceDatabase, useTransformRunner } from '../service-test-kit';

const admin = testPrincipal();
const store = useServiceDatabase();
const transforms = useTransformRunner();
const deps = () => ({
  repositories: store.repositories(),
  targetPolicy: { allowPrivate: false, allowlist: [] },
  secretKeys: undefined,
  transforms,
});
const rules = () => createRuleService(deps());
const hooks = () => createHookService(deps());
const input = (source: string, extra: { name?: string; active?: boolean } = {}) => ({
  source,
  target_url: 'https://example.com/in',
  active: false,
  ...extra,
});
const hookInput = { target_url: 'https://example.com/hook', trigger: 'provider_failed' as const, active: true };

// Names (issue 27): unique per organization for rules and per rule for hooks, defaulted and suffixed when taken,
// a clash refused with its own code and without an audit entry.
describe('rule and hook names', () => {
  it('names a rule after its source, suffixing -2, -3 for later rules of the same source', async () => {
    const first = await rules().create(admin, input('shop', { active: true }));
    const second = await rules().create(admin, input('shop'));
    const third = await rules().create(admin, input('shop'));
    expect([first.name, second.name, third.name]).toEqual(['shop', 'shop-2', 'shop-3']);
    // A name freed by a rename is taken again by the next default.
    await rules().update(admin, second.id, { name: 'shop-eu' });
    expect((await rules().create(admin, input('shop'))).name).toBe('shop-2');
  });

  it('takes a given name, refuses a taken one on create and rename, and audits neither refusal', async () => {
    const named = await rules().create(admin, input('billing', { name: 'billing-us' }));
    expect(named.name).toBe('billing-us');
    const other = await rules().create(admin, input('invoices'));
    const before = await store.db.prisma.auditEntry.count();
    await expect(rules().create(admin, input('billing', { name: 'billing-us' }))).rejects.toMatchObject({
      code: 'rule_name_taken',
    });
    await expect(rules().update(admin, other.id, { name: 'billing-us' })).rejects.toMatchObject({
      code: 'rule_name_taken',
    });
    expect(await store.db.prisma.auditEntry.count()).toBe(before);
    expect((await rules().get(admin, other.id)).name).toBe('invoices');
    // Renaming a rule to its own name is no clash.
    expect((await rules().update(admin, named.id, { name: 'billing-us' })).name).toBe('billing-us');
  });

  it('names concurrent rules of one source apart (the organization lock, not the unique index, decides)', async () => {
    const made = await Promise.all(Array.from({ length: 5 }, () => rules().create(admin, input('burst'))));
    expect(new Set(made.map((r) => r.name))).toEqual(new Set(['burst', 'burst-2', 'burst-3', 'burst-4', 'burst-5']));
  });

  it('names a hook after its trigger, unique in its rule, and refuses a taken name', async () => {
    const rule = await rules().create(admin, input('hooked'));
    const other = await rules().create(admin, input('hooked-too'));
    const a = await hooks().create(admin, rule.id, hookInput);
    const b = await hooks().create(admin, rule.id, hookInput);
    const elsewhere = await hooks().create(admin, other.id, hookInput);
    expect([a.name, b.name, elsewhere.name]).toEqual(['provider_failed', 'provider_failed-2', 'provider_failed']);
    const named = await hooks().create(admin, rule.id, { ...hookInput, name: 'page-on-call' });
    expect(named.name).toBe('page-on-call');
    await expect(hooks().create(admin, rule.id, { ...hookInput, name: 'page-on-call' })).rejects.toMatchObject({
      code: 'hook_name_taken',
    });
    await expect(hooks().update(admin, rule.id, a.id, { name: 'page-on-call' })).rejects.toMatchObject({
      code: 'hook_name_taken',
    });
    expect((await hooks().update(admin, rule.id, a.id, { name: 'alert' })).name).toBe('alert');
  });
});
