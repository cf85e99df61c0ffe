import { describe, expect, it } from 'vitest';
import { relativeTime } from '../src/components/relative-time';
import { safeRedirect } from '../src/app/session';
import { prettyBody } from '../src/pages/events/event-payload';
import { eventsSearch } from '../src/pages/events/events-search';

describe('small pieces', () => {
  it('writes times relative to now', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(relativeTime('2026-11-23T11:57:00Z', now)).toBe('3 minutes ago');
    expect(relativeTime('2026-11-21T12:00:00Z', now)).toBe('2 days ago');
    expect(relativeTime('2026-11-23T12:00:00Z', now)).toBe('now');
  });

  it('pretty-prints a JSON body and leaves anything else as stored', () => {
    expect(prettyBody('{"a":[1]}')).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(prettyBody('a=1&b=2')).toBe('a=1&b=2');
  });

  it('follows only same-app paths after sign-in', () => {
    expect(safeRedirect('/events?status=failed')).toBe('/events?status=failed');
    expect(safeRedirect('//evil.example/x')).toBeUndefined();
    expect(safeRedirect('/\\evil.example')).toBeUndefined();
    expect(safeRedirect('https://evil.example')).toBeUndefined();
    expect(safeRedirect(undefined)).toBeUndefined();
  });

  it('reads hand-edited event filters leniently: bad values fall back, per_page stays within 1..200', () => {
    expect(eventsSearch.parse({ status: 'nope', per_page: 500, page: -3 })).toMatchObject({ page: 1, per_page: 50 });
    expect(eventsSearch.parse({ status: 'failed', per_page: '200', needs_attention: true })).toMatchObject({
      status: 'failed',
      per_page: 200,
      needs_attention: true,
    });
  });
});
