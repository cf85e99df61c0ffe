import { userCredential } from '../e2e/harness';
import { startCliRelay, type CliRelay } from './cli-harness';

const SECRET = 'a-signing-secret-never-shown-0123';
const FORBIDDEN = /^error: .*\[forbidden\]$/m;

describe('relay rules, hooks and config default-target', () => {
  let relay: CliRelay;
  let admin: string;
  let viewer: string;
  let api: string;
  beforeAll(async () => {
    relay = await startCliRelay();
    [admin, viewer] = await Promise.all([relay.loginAs('admin'), relay.loginAs('viewer')]);
    api = (await userCredential(relay.pipeline, 'admin')).authorization;
  });
  afterAll(() => relay.close());

  const ruleOf = (id: string) => relay.pipeline.http.get(`/rules/${id}`).set('authorization', api);
  const json = async (home: string, args: string[], input?: string) => {
    const result = await relay.run(home, [...args, '--json'], input === undefined ? {} : { input });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };

  it('creates a rule with a secret from stdin (never echoed), lists, shows and updates it', async () => {
    const created = await relay.run(
      admin,
      ['rules', 'create', '--source', 'github', '--target', 'https://ci.example.com/in', '--signing-secret-stdin'],
      { input: `${SECRET}\n` },
    );
    expect(created.code).toBe(0);
    expect(created.stdout + created.stderr).not.toContain(SECRET);
    const id = /Created rule ([0-9a-f-]{36})/.exec(created.stdout)![1]!;
    expect(created.stdout).toMatch(/signing:\s+own secret/);
    expect((await ruleOf(id).expect(200)).body).toMatchObject({
      source: 'github',
      target_url: 'https://ci.example.com/in',
      active: true,
      has_signing_secret: true,
      signing: 'own',
    });

    const list = await relay.run(admin, ['rules', 'list']);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+SOURCE\s+TARGET\s+STATE\s+SIGNING\s+DESCRIPTION$/);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+github\\s+github\\s+https://ci.example.com/in\\s+active\\s+own`));
    const listed = (await json(admin, ['rules', 'list'])) as { rules: { id: string }[] };
    expect(listed.rules.map((r) => r.id)).toContain(id);
    expect((await json(viewer, ['rules', 'show', id])).source).toBe('github');

    const updated = await json(admin, [
      'rules',
      'update',
      id,
      '--name',
      'github-ci',
      '--target',
      'https://ci.example.com/v2',
      '--description',
      'CI builds',
      '--clear-signing-secret',
      '--forward-header',
      'authorization',
    ]);
    expect(updated).toMatchObject({
      name: 'github-ci',
      target_url: 'https://ci.example.com/v2',
      description: 'CI builds',
    });
    // A second rule of the source, named on creation; taking the first one's name is refused with its code.
    const eu = await json(admin, [
      'rules',
      'create',
      '--name',
      'github-eu',
      '--source',
      'github',
      '--target',
      'https://eu.example.com',
      '--inactive',
    ]);
    expect(eu.name).toBe('github-eu');
    const clash = await relay.run(admin, ['rules', 'update', eu.id as string, '--name', 'github-ci']);
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toMatch(/\[rule_name_taken\]/);
    expect((await ruleOf(id).expect(200)).body).toMatchObject({
      target_url: 'https://ci.example.com/v2',
      description: 'CI builds',
      has_signing_secret: false,
      signing: 'none',
      outbound_headers: { forward: ['authorization'] },
    });
    // Without DEFAULT_SIGNING_SECRET on the relay, a rule without its own secret goes out unsigned.
    expect((await relay.run(viewer, ['rules', 'show', id])).stdout).toMatch(/^signing:\s+none$/m);
  });

  it('rotates the signing secret from stdin, keeping the old one for the window asked', async () => {
    const rule = await json(admin, ['rules', 'create', '--source', 'rotated', '--target', 'https://r.example.com'], '');
    const rotated = await relay.run(admin, ['rules', 'rotate-secret', String(rule.id), '--keep-previous', '3600'], {
      input: 'the-next-signing-secret-4567\n',
    });
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).not.toContain('the-next-signing-secret-4567');
    const stored = await relay.pipeline.store.prisma.rule.findUnique({ where: { id: String(rule.id) } });
    expect(stored!.signingSecret).toBeTruthy();
    // The second rotation replaces a secret, so the replaced one keeps signing for the hour asked.
    const again = await json(
      admin,
      ['rules', 'rotate-secret', String(rule.id), '--keep-previous', '3600'],
      'x'.repeat(20),
    );
    const expires = Date.parse(String(again.previous_secret_expires_at));
    expect(expires).toBeGreaterThan(Date.now() + 3_500_000);
    expect(expires).toBeLessThan(Date.now() + 3_700_000);
    const empty = await relay.run(admin, ['rules', 'rotate-secret', String(rule.id)], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('expected the new signing secret on stdin');
  });

  it('refuses an update with nothing to change, and a bad --forward-header, as usage errors', async () => {
    const rule = await json(admin, ['rules', 'create', '--source', 'usage', '--target', 'https://x.example.com']);
    const nothing = await relay.run(admin, ['rules', 'update', String(rule.id)]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('nothing to change');
    const bad = await relay.run(admin, ['rules', 'update', String(rule.id), '--forward-header', 'cookie']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--forward-header must be one of authorization');
    expect((await ruleOf(String(rule.id)).expect(200)).body.outbound_headers).toEqual({
      forward: [],
      set: {},
      remove: [],
    });
  });

  it('disables and enables a rule, and shows the API refusal of a second active rule for a source', async () => {
    const first = await json(admin, ['rules', 'create', '--source', 'stripe', '--target', 'https://a.example.com']);
    const id = String(first.id);
    const off = await relay.run(admin, ['rules', 'disable', id]);
    expect(off).toMatchObject({ code: 0, stdout: expect.stringContaining('is disabled') });
    expect((await ruleOf(id).expect(200)).body.active).toBe(false);
    const second = await json(admin, ['rules', 'create', '--source', 'stripe', '--target', 'https://b.example.com']);
    const conflict = await relay.run(admin, ['rules', 'enable', id]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/^error: .*\[active_provider_exists\]$/m);
    await relay.run(admin, ['rules', 'disable', String(second.id)]);
    expect((await relay.run(admin, ['rules', 'enable', id])).code).toBe(0);
    expect((await ruleOf(id).expect(200)).body.active).toBe(true);
  });

  it('refuses a viewer creating, changing or deleting rules with the API code', async () => {
    const rule = await json(admin, ['rules', 'create', '--source', 'viewed', '--target', 'https://v.example.com']);
    const create = await relay.run(viewer, ['rules', 'create', '--source', 'nope', '--target', 'https://n.example']);
    expect(create.code).toBe(1);
    expect(create.stderr).toMatch(FORBIDDEN);
    const disable = await relay.run(viewer, ['rules', 'disable', String(rule.id)]);
    expect(disable.code).toBe(1);
    expect(disable.stderr).toMatch(FORBIDDEN);
    expect((await ruleOf(String(rule.id)).expect(200)).body.active).toBe(true);
  });

  it('deletes a rule only when confirmed: without --yes on a non-terminal it is a usage error', async () => {
    const rule = await json(admin, ['rules', 'create', '--source', 'doomed', '--target', 'https://d.example.com']);
    const id = String(rule.id);
    const refused = await relay.run(admin, ['rules', 'delete', id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    await ruleOf(id).expect(200);
    const deleted = await relay.run(admin, ['rules', 'delete', id, '--yes']);
    expect(deleted).toMatchObject({ code: 0, stdout: expect.stringContaining(`Deleted rule doomed (${id})`) });
    await ruleOf(id).expect(404);
    const missing = await relay.run(admin, ['rules', 'show', id]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: No such rule\. \[not_found\]$/m);
  });

  it('creates, lists and deletes hooks of a rule; a viewer may list but not create', async () => {
    const rule = await json(admin, ['rules', 'create', '--source', 'hooked', '--target', 'https://h.example.com']);
    const ruleId = String(rule.id);
    const hook = await json(admin, [
      'hooks',
      'create',
      ruleId,
      '--target',
      'https://alerts.example.com/relay',
      '--trigger',
      'succeeded',
    ]);
    expect(hook).toMatchObject({ rule_id: ruleId, trigger: 'provider_succeeded', active: true });
    const stored = await relay.pipeline.http.get(`/rules/${ruleId}/hooks`).set('authorization', api).expect(200);
    expect(stored.body.hooks).toEqual([
      expect.objectContaining({ id: hook.id, target_url: 'https://alerts.example.com/relay' }),
    ]);
    const list = await relay.run(viewer, ['hooks', 'list', ruleId]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(`${String(hook.id)}\\s+provider_succeeded\\s+provider_succeeded\\s+https://alerts.example.com/relay`),
    );
    const refused = await relay.run(viewer, ['hooks', 'create', ruleId, '--target', 'https://x.example.com']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(FORBIDDEN);
    const badTrigger = await relay.run(admin, [
      'hooks',
      'create',
      ruleId,
      '--target',
      'https://x.example.com',
      '--trigger',
      'x',
    ]);
    expect(badTrigger.code).toBe(2);
    expect(badTrigger.stderr).toContain('--trigger must be one of provider_succeeded, provider_failed');

    const unconfirmed = await relay.run(admin, ['hooks', 'delete', ruleId, String(hook.id)]);
    expect(unconfirmed.code).toBe(2);
    expect((await relay.pipeline.http.get(`/rules/${ruleId}/hooks`).set('authorization', api)).body.hooks).toHaveLength(
      1,
    );
    expect((await relay.run(admin, ['hooks', 'delete', ruleId, String(hook.id), '-y'])).code).toBe(0);
    expect((await relay.pipeline.http.get(`/rules/${ruleId}/hooks`).set('authorization', api)).body.hooks).toEqual([]);
  });

  it('shows, sets and clears the default target; a viewer reads it but cannot set it', async () => {
    const set = await relay.run(admin, ['config', 'default-target', 'set', 'https://catch-all.example.com/in']);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/organization default:\s+https:\/\/catch-all.example.com\/in/);
    const stored = await relay.pipeline.http.get('/config/default-target').set('authorization', api).expect(200);
    expect(stored.body.target_url).toBe('https://catch-all.example.com/in');
    expect((await json(viewer, ['config', 'default-target'])).target_url).toBe('https://catch-all.example.com/in');
    const refused = await relay.run(viewer, ['config', 'default-target', 'clear']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(FORBIDDEN);
    expect((await json(admin, ['config', 'default-target', 'clear'])).target_url).toBeNull();
    expect(
      (await relay.pipeline.http.get('/config/default-target').set('authorization', api)).body.target_url,
    ).toBeNull();
    expect((await relay.run(admin, ['config', 'default-target', 'set'])).code).toBe(2);
    expect((await relay.run(admin, ['config', 'default-target', 'wipe'])).code).toBe(2);
  });
});
