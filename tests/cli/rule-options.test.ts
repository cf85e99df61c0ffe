import { startCliRelay, type CliRelay } from './cli-harness';

// `relay rules create/update/show` with the rule options (issue 18), and rotate-verification-secret.
const VERIFY_SECRET = 'whsec-cli-verification-secret';

describe('relay rules: rule options', () => {
  let relay: CliRelay;
  let admin: string;
  beforeAll(async () => {
    relay = await startCliRelay();
    admin = await relay.loginAs('admin');
  });
  afterAll(() => relay.close());

  const row = (id: string) => relay.pipeline.store.prisma.rule.findUniqueOrThrow({ where: { id } });
  const json = async (args: string[], input?: string) => {
    const result = await relay.run(admin, [...args, '--json'], input === undefined ? {} : { input });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(result.stdout) as Record<string, unknown> & { id: string };
  };

  it('creates a rule with every option from flags, the verification secret from stdin, and shows them', async () => {
    const created = await relay.run(
      admin,
      [
        ...['rules', 'create', '--source', 'cli-options', '--target', 'https://x.example.com/in'],
        ...['--dedup', 'github', '--dedup-window', '48h', '--verify', 'github', '--verification-secret-stdin'],
        ...['--unhealthy-after', '2d', '--ordering', 'header:x-customer', '--max-attempts', '4'],
        ...['--backoff-base', '30s', '--backoff-cap', '1h', '--timeout', '15'],
        ...['--set-header', 'x-team=payments', '--set-header', 'x-env=prod', '--remove-header', 'x-debug'],
      ],
      { input: `${VERIFY_SECRET}\n` },
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).not.toContain(VERIFY_SECRET);
    const id = /Created rule ([0-9a-f-]{36})/.exec(created.stdout)![1]!;
    const stored = await row(id);
    expect(stored).toMatchObject({
      dedup: { preset: 'github', window_seconds: 172_800 },
      verification: { preset: 'github' },
      unhealthyAfterSeconds: 172_800,
      ordering: { header: 'x-customer' },
      deliveryPolicy: { max_attempts: 4, backoff_base_seconds: 30, backoff_cap_seconds: 3_600, timeout_seconds: 15 },
      outboundHeaders: { forward: [], set: { 'x-team': 'payments', 'x-env': 'prod' }, remove: ['x-debug'] },
    });
    expect(stored.verificationSecret).toBeTruthy();
    expect(stored.verificationSecret).not.toContain(VERIFY_SECRET);

    const show = await relay.run(admin, ['rules', 'show', id]);
    expect(show.stdout).toMatch(/dedup:\s+github preset, window 2d/);
    expect(show.stdout).toMatch(/verification:\s+github/);
    expect(show.stdout).toMatch(/verification secret:\s+set \(never shown\)/);
    expect(show.stdout).toMatch(/signature failures:\s+0/);
    expect(show.stdout).toMatch(/unhealthy after:\s+2d/);
    expect(show.stdout).toMatch(/ordering:\s+header x-customer/);
    expect(show.stdout).toMatch(/delivery policy:\s+4 attempts, backoff from 30s, up to 1h, timeout 15s/);
    expect(show.stdout).toMatch(/set headers:\s+.*x-team: payments/);
    expect(show.stdout).toMatch(/set headers:\s+.*x-env: prod/);
    expect(show.stdout).toMatch(/removed headers:\s+x-debug/);
  });

  it('updates part of an option keeping the rest, and turns options off', async () => {
    const rule = await json(
      [
        ...['rules', 'create', '--source', 'cli-options-update', '--target', 'https://x.example.com/in'],
        ...['--dedup', 'pointer:/id', '--max-attempts', '3', '--timeout', '10', '--forward-header', 'authorization'],
        ...['--verify', 'hmac', '--verify-header', 'x-sig', '--verify-encoding', 'base64'],
        '--verification-secret-stdin',
      ],
      VERIFY_SECRET,
    );
    const changed = await json([
      ...['rules', 'update', rule.id, '--dedup-window', '1h', '--max-attempts', '6', '--verify-prefix', 'v1='],
      ...['--set-header', 'x-a=1', '--ordering', 'source'],
    ]);
    expect(changed).toMatchObject({
      dedup: { json_pointer: '/id', window_seconds: 3_600 },
      delivery_policy: { max_attempts: 6, timeout_seconds: 10 },
      verification: { preset: 'hmac', header: 'x-sig', encoding: 'base64', prefix: 'v1=' },
      ordering: {},
      outbound_headers: { forward: ['authorization'], set: { 'x-a': '1' }, remove: [] },
    });
    const off = await json([
      ...['rules', 'update', rule.id, '--no-dedup', '--no-verify', '--no-ordering', '--no-delivery-policy'],
      ...['--clear-set-headers', '--unhealthy-after', 'default'],
    ]);
    expect(off).toMatchObject({
      dedup: null,
      verification: null,
      ordering: null,
      delivery_policy: null,
      outbound_headers: { forward: ['authorization'], set: {}, remove: [] },
    });
    expect(await row(rule.id)).toMatchObject({ dedup: null, ordering: null, deliveryPolicy: null });
  });

  it('refuses bad option flags as usage errors and passes on the API refusal of a limit', async () => {
    const rule = await json(['rules', 'create', '--source', 'cli-options-bad', '--target', 'https://x.example.com']);
    const badKey = await relay.run(admin, ['rules', 'update', rule.id, '--dedup', 'gitlab']);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('--dedup takes github, stripe, shopify, standard_webhooks');
    const window = await relay.run(admin, ['rules', 'update', rule.id, '--dedup-window', '1h']);
    expect(window.code).toBe(2);
    expect(window.stderr).toContain('--dedup-window needs --dedup');
    const twoSecrets = await relay.run(
      admin,
      ['rules', 'update', rule.id, '--signing-secret-stdin', '--verification-secret-stdin'],
      { input: 'x'.repeat(20) },
    );
    expect(twoSecrets.code).toBe(2);
    expect(twoSecrets.stderr).toContain('stdin holds one input');
    const limit = await relay.run(admin, ['rules', 'update', rule.id, '--max-attempts', '500']);
    expect(limit.code).toBe(1);
    expect(limit.stderr).toMatch(/max_attempts.*\[validation_failed\]/);
    expect((await row(rule.id)).deliveryPolicy).toBeNull();
  });

  it('rotates the verification secret from stdin, keeping the old one for the window asked', async () => {
    const rule = await json(
      ['rules', 'create', '--source', 'cli-options-rotate', '--target', 'https://x.example.com'],
      undefined,
    );
    await json(['rules', 'update', rule.id, '--verify', 'slack', '--verification-secret-stdin'], VERIFY_SECRET);
    const before = (await row(rule.id)).verificationSecret;
    const rotated = await relay.run(admin, ['rules', 'rotate-verification-secret', rule.id, '--keep-previous', '1h'], {
      input: 'the-next-verification-secret\n',
    });
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).not.toContain('the-next-verification-secret');
    expect(rotated.stdout).toMatch(/previous:\s+also accepted until /);
    const after = await row(rule.id);
    expect(after.previousVerificationSecret).toBe(before);
    expect(after.verificationSecret).not.toBe(before);
    const expires = after.previousVerificationExpiresAt!.getTime();
    expect(expires).toBeGreaterThan(Date.now() + 3_500_000);
    expect(expires).toBeLessThan(Date.now() + 3_700_000);
    const empty = await relay.run(admin, ['rules', 'rotate-verification-secret', rule.id], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('expected the new verification secret on stdin');
  });
});
