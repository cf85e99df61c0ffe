import { describe, expect, it } from 'vitest';
import { colorsFor } from '../../output/colors';
import { eventDetailText, payloadText, type EventDetail } from './events-show-format';

const plain = colorsFor({ isTty: false, noColor: true, forceColor: false });
const event: EventDetail = {
  id: 'e1',
  source: 'gh',
  status: 'failed',
  provider_id: null,
  target_url: 'http://t/in',
  attempt_count: 2,
  failure_reason: 'retries_exhausted',
  acknowledged: true,
  acknowledged_at: '2025-03-10T11:58:00.000Z',
  created_at: '2025-03-10T11:00:00.000Z',
  delivered_at: null,
  delivery_counts: { total: 0, queued: 0, delivered: 0, failed: 0, paused: 0 },
  payload: 'not json {',
  payload_as_text: true,
  headers: { 'x-b': '2', 'content-type': 'text/plain' },
  path: '',
  query: {},
  ignored_reason: null,
  last_error: 'HTTP 500',
  next_attempt_at: null,
  updated_at: '2025-03-10T11:58:00.000Z',
  deliveries: [],
};

describe('event detail', () => {
  it('prints a payload stored as text as it is, and JSON indented', () => {
    expect(payloadText(event)).toBe('not json {');
    expect(payloadText({ payload: 'a string' })).toBe('"a string"');
    expect(payloadText({ payload: { a: [1] } })).toBe('{\n  "a": [\n    1\n  ]\n}');
  });
  it('shows the summary (only fields with a value), sorted headers, then the payload', () => {
    const text = eventDetailText(event, plain, Date.parse('2025-03-10T12:00:00.000Z'));
    expect(text).toBe(
      [
        'Event e1',
        '  source:     gh',
        '  status:     failed (acknowledged 2m ago)',
        '  attempts:   2',
        '  target:     http://t/in',
        '  reason:     retries_exhausted',
        '  last error: HTTP 500',
        '  received:   2025-03-10T11:00:00.000Z (1h ago)',
        '',
        'Headers',
        '  content-type: text/plain',
        '  x-b: 2',
        '',
        'Payload (stored as text)',
        'not json {',
      ].join('\n'),
    );
  });

  it('lists the destination deliveries by name (id when unnamed), with status, attempts and why', () => {
    const now = Date.parse('2025-03-10T12:00:00.000Z');
    const delivery = {
      id: 'd-1',
      destination_id: 'dest-1',
      target_url: 'http://chat/in',
      status: 'failed' as const,
      attempt_count: 3,
      failure_reason: 'retries_exhausted',
      last_error: 'HTTP 503',
      acknowledged: true,
      next_attempt_at: null,
      delivered_at: null,
    };
    const other = {
      ...delivery,
      id: 'd-2',
      destination_id: 'dest-2',
      status: 'delivered' as const,
      attempt_count: 1,
      failure_reason: null,
      last_error: null,
      acknowledged: false,
      delivered_at: '2025-03-10T11:59:00.000Z',
    };
    const text = eventDetailText(
      { ...event, deliveries: [delivery, other] },
      plain,
      now,
      new Map([['dest-1', 'chat']]),
    );
    const lines = text.split('\n');
    const at = lines.indexOf('Deliveries (2)');
    expect(lines[at + 1]).toMatch(/^ {2}DESTINATION\s+STATUS\s+ATTEMPTS\s+REASON\s+LAST ERROR\s+WHEN\s+TARGET$/);
    expect(lines[at + 2]).toMatch(/^ {2}chat\s+failed \(ack\)\s+3\s+retries_exhausted\s+HTTP 503\s+http:\/\/chat\/in$/);
    expect(lines[at + 3]).toMatch(/^ {2}dest-2\s+delivered\s+1\s+delivered 1m ago\s+http:\/\/chat\/in$/);
    expect(lines[at + 4]).toBe('');
    expect(eventDetailText(event, plain, now)).not.toContain('Deliveries');
  });
});
