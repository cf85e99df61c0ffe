import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { startCliRelay, type CliRelay } from './cli-harness';

const SECRET = 'a-notification-secret-never-shown-0';

describe('relay org notifications', () => {
  let relay: CliRelay;
  let admin: string;
  let viewer: string;
  beforeAll(async () => {
    relay = await startCliRelay();
    [admin, viewer] = await Promise.all([relay.loginAs('admin'), relay.loginAs('viewer')]);
  });
  afterAll(() => relay.close());

  const org = () =>
    relay.pipeline.store.prisma.organization.findUniqueOrThrow({ where: { id: DEFAULT_ORGANIZATION_ID } });

  it('sets the URL with a secret from stdin (never echoed), shows it, clears it', async () => {
    const set = await relay.run(
      admin,
      ['org', 'notifications', 'set', 'https://ops.example.com/relay', '--secret-stdin'],
      { input: `${SECRET}\n` },
    );
    expect(set.code).toBe(0);
    expect(set.stdout + set.stderr).not.toContain(SECRET);
    expect(set.stdout).toContain('Notifications set.');
    expect(set.stdout).toMatch(/notification URL:\s+https:\/\/ops\.example\.com\/relay/);
    expect(set.stdout).toMatch(/secret:\s+set \(write-only\)/);
    expect((await org()).notificationSecret).toMatch(/^enc:/);

    const shown = await relay.run(admin, ['org', 'notifications', 'show', '--json']);
    expect(JSON.parse(shown.stdout)).toEqual({ url: 'https://ops.example.com/relay', has_secret: true });

    const cleared = await relay.run(admin, ['org', 'notifications', 'clear']);
    expect(cleared.stdout).toMatch(/notification URL:\s+\(none: no notices\)/);
    expect((await org()).notificationUrl).toBeNull();
  });

  it('refuses a viewer and a URL the target policy blocks, and takes one secret flag', async () => {
    const denied = await relay.run(viewer, ['org', 'notifications', 'show']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/\[forbidden\]/);
    const blocked = await relay.run(admin, ['org', 'notifications', 'set', 'ftp://example.com/']);
    expect(blocked.code).not.toBe(0);
    expect(blocked.stderr).toMatch(/\[target_url_rejected\]/);
    const both = await relay.run(admin, [
      'org',
      'notifications',
      'set',
      'https://ops.example.com/relay',
      '--secret-stdin',
      '--clear-secret',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });
});
