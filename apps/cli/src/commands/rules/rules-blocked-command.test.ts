import { describe, expect, it } from 'vitest';
import { blockedKeysTable } from './rules-blocked-command';

describe('relay rules blocked', () => {
  const now = Date.parse('2026-01-02T03:10:00.000Z');

  it('lists each blocked key with its head, attempts, age and what waits behind it', () => {
    const text = blockedKeysTable(
      {
        blocked_keys: [
          {
            key: 'order-7',
            event_id: '0192f0c4-0000-7000-8000-000000000001',
            status: 'queued',
            attempts: 3,
            blocked_since: '2026-01-02T03:04:00.000Z',
            waiting: 12,
          },
          {
            key: '',
            event_id: '0192f0c4-0000-7000-8000-000000000002',
            status: 'paused',
            attempts: 1,
            blocked_since: '2026-01-02T03:09:30.000Z',
            waiting: 0,
          },
        ],
      },
      now,
    );
    const [header, first, second] = text.split('\n');
    expect(header).toMatch(/KEY\s+HEAD EVENT\s+STATUS\s+ATTEMPTS\s+BLOCKED SINCE\s+WAITING/);
    expect(first).toMatch(/order-7\s+0192f0c4-0000-7000-8000-000000000001\s+queued\s+3\s+2026-01-02T03:04:00.000Z/);
    expect(first).toMatch(/\(6m ago\)\s+12$/);
    expect(second).toMatch(/^\(source\)\s+.*paused\s+1\s+.*\(30s ago\)\s+0$/);
  });

  it('says so when nothing is blocked', () => {
    expect(blockedKeysTable({ blocked_keys: [] }, now)).toMatch(/No blocked keys/);
  });
});
