import { describe, expect, it } from 'vitest';
import { colorsFor } from '../../output/colors';
import type { FeedMessage } from '../../stream/feed-message';
import { createTailFilter, tailLine } from './events-tail-lines';

const plain = colorsFor({ isTty: false, noColor: true, forceColor: false });
const created = (id: string, source: string): FeedMessage => ({
  type: 'event.created',
  id: '1',
  data: { id, source, status: 'queued', created_at: '2025-03-10T12:00:00.000Z' },
});
const status = (id: string, s: 'failed' | 'delivered'): FeedMessage => ({
  type: 'event.status',
  id: '2',
  data: { id, status: s, failure_reason: s === 'failed' ? 'HTTP 500' : null, acknowledged: false },
});
const attempt = (eventId: string): FeedMessage => ({
  type: 'attempt',
  id: '3',
  data: {
    event_id: eventId,
    attempt_number: 1,
    kind: 'main',
    hook_id: null,
    target_url: 'http://t',
    response_status: 500,
    error: null,
    duration_ms: 12,
    finished_at: '2025-03-10T12:00:00.000Z',
  },
});

describe('tail filter', () => {
  it('keeps messages about events of --source, looking up older events once', async () => {
    const lookups: string[] = [];
    const accepts = createTailFilter({ source: 'gh' }, (id) => {
      lookups.push(id);
      return Promise.resolve(id === 'old-gh' ? 'gh' : 'stripe');
    });
    expect(await accepts(created('new', 'gh'))).toBe(true);
    expect(await accepts(created('other', 'stripe'))).toBe(false);
    expect(await accepts(attempt('new'))).toBe(true);
    expect(await accepts(attempt('other'))).toBe(false);
    expect(await accepts(status('old-gh', 'failed'))).toBe(true);
    expect(await accepts(attempt('old-gh'))).toBe(true);
    expect(await accepts(attempt('old-stripe'))).toBe(false);
    expect(lookups).toEqual(['old-gh', 'old-stripe']);
  });
  it('keeps created events and status changes of --status only', async () => {
    const accepts = createTailFilter({ status: 'failed' }, () => Promise.resolve(undefined));
    expect(await accepts(created('a', 'gh'))).toBe(false);
    expect(await accepts(status('a', 'failed'))).toBe(true);
    expect(await accepts(status('b', 'delivered'))).toBe(false);
    expect(await accepts(attempt('a'))).toBe(false);
    expect(await accepts({ type: 'replay.truncated', id: undefined, data: {} })).toBe(true);
  });
});

describe('tail lines', () => {
  const at = new Date(2025, 2, 10, 9, 5, 7);
  it('prints time, type, event id and what happened', () => {
    expect(tailLine(created('e1', 'gh'), plain, at)).toBe('09:05:07  event.created  e1  gh  queued');
    expect(tailLine(status('e1', 'failed'), plain, at)).toBe('09:05:07  event.status   e1  failed (HTTP 500)');
    expect(tailLine(attempt('e1'), plain, at)).toBe('09:05:07  attempt        e1  #1 main 500 12 ms');
    expect(tailLine({ type: 'event.deleted', id: '4', data: { id: 'e1' } }, plain, at)).toBe(
      '09:05:07  event.deleted  e1  deleted',
    );
  });
});
