import { describe, expect, it } from 'vitest';
import { colorsFor } from '../output/colors';
import { forwardHeaders } from './forward-headers';
import { listenLine } from './listen-command';

describe('forwardHeaders', () => {
  it("keeps the sender's headers, drops hop-by-hop, framing, relay and masked ones, adds the event id", () => {
    const headers = forwardHeaders(
      {
        'content-type': 'application/vnd.shop+json; charset=utf-8',
        'X-Hub-Signature-256': 'sha256=abc',
        'user-agent': 'GitHub-Hookshot/1',
        'content-encoding': 'gzip',
        'content-length': '12',
        host: 'relay.example.com',
        'transfer-encoding': 'chunked',
        connection: 'keep-alive',
        'x-relay-signature': 'old',
        authorization: 'Bearer [masked]',
      },
      { id: 'e1', contentType: 'application/json' },
    );
    expect(headers).toEqual({
      'content-type': 'application/vnd.shop+json; charset=utf-8',
      'x-hub-signature-256': 'sha256=abc',
      'user-agent': 'GitHub-Hookshot/1',
      'x-relay-event-id': 'e1',
    });
  });

  it("takes the body's content type when none was stored", () => {
    expect(forwardHeaders({}, { id: 'e2', contentType: 'application/json' })).toEqual({
      'content-type': 'application/json',
      'x-relay-event-id': 'e2',
    });
  });
});

describe('listenLine', () => {
  const plain = colorsFor({ isTty: false, noColor: true, forceColor: false });
  it('shows time, source, id, the local status or error, and the duration', () => {
    const base = { time: '2025-03-04T05:06:07.890Z', event_id: 'e1', source: 'github', duration_ms: 12 };
    // The time is the user's local one: only its seconds are the same in every time zone.
    const line = listenLine({ ...base, status: 204, error: null }, plain);
    expect(line).toMatch(/^\d\d:\d\d:07/);
    expect(line.slice(8)).toBe('  github        e1  → 204  12 ms');
    expect(listenLine({ ...base, status: null, error: 'ECONNREFUSED' }, plain)).toContain('→ error: ECONNREFUSED');
  });
});
