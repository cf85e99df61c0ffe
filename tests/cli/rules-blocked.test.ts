import { seedBlockedKey } from '../e2e/ordering-fixture';
import { startCliRelay, type CliRelay } from './cli-harness';

// `relay rules blocked <id>`: an ordered rule's keys held up by a failing event.
describe('relay rules blocked', () => {
  let relay: CliRelay;
  let viewer: string;
  beforeAll(async () => {
    relay = await startCliRelay();
    viewer = await relay.loginAs('viewer');
  });
  afterAll(() => relay.close());

  it('lists the blocked key with its head, attempts, age and waiting events; --json gives the API answer', async () => {
    const seeded = await seedBlockedKey(relay.pipeline, { source: 'cli-ordered', key: 'acct-1', waiting: 2 });
    const shown = await relay.run(viewer, ['rules', 'blocked', seeded.ruleId]);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toMatch(
      new RegExp(`acct-1\\s+${seeded.headId}\\s+queued\\s+2\\s+${seeded.blockedSince.toISOString()} \\(1m ago\\)\\s+2`),
    );
    const json = await relay.run(viewer, ['rules', 'blocked', seeded.ruleId, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      blocked_keys: [expect.objectContaining({ key: 'acct-1', event_id: seeded.headId, attempts: 2, waiting: 2 })],
    });
  });
});
