import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors';
import { deliveryOptionsBody, needsStoredDelivery } from './delivery-option-flags';
import { parseRateLimit } from './pacing-flags';
import { transformPacingFields } from './rule-option-views';
import { transformTestText } from './rules-transform-test-command';
import { transformFromFlags } from './transform-flags';

const CODE = "addHandler('transform', (request) => request);\n";
const noStdin = () => Readable.from([]);

describe('transform flags', () => {
  it('reads the code from @file, from stdin with -, or as given; --no-transform is null', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-transform-'));
    const file = join(dir, 'to-chat.js');
    await writeFile(file, CODE);
    expect(await transformFromFlags({ transform: `@${file}` }, noStdin())).toBe(CODE);
    expect(await transformFromFlags({ transform: '-' }, Readable.from(["addHandler('transform', ", 'f);']))).toBe(
      "addHandler('transform', f);",
    );
    expect(await transformFromFlags({ transform: CODE }, noStdin())).toBe(CODE);
    expect(await transformFromFlags({ transform: false }, noStdin())).toBeNull();
    expect(await transformFromFlags({}, noStdin())).toBeUndefined();
  });

  it('refuses a missing file and empty code', async () => {
    await expect(transformFromFlags({ transform: '@/nonexistent/t.js' }, noStdin())).rejects.toThrow(/ENOENT/);
    await expect(transformFromFlags({ transform: '-' }, Readable.from(['  \n']))).rejects.toThrow(/stdin is empty/);
    await expect(transformFromFlags({ transform: ' ' }, noStdin())).rejects.toThrow(UsageError);
  });
});

describe('pacing flags', () => {
  it('reads <n>/<period> and refuses anything else', () => {
    expect(parseRateLimit('5/second')).toEqual({ limit: 5, period: 'second' });
    expect(parseRateLimit(' 30 / minute ')).toEqual({ limit: 30, period: 'minute' });
    for (const bad of ['5', '5/day', '0/hour', 'x/second', '5/second/2', '/hour'])
      expect(() => parseRateLimit(bad)).toThrow(UsageError);
  });

  it('turns the flags into rate_limit, max_concurrency and forward_path_query, or null to turn them off', () => {
    expect(
      deliveryOptionsBody({ rateLimit: '5/second', burst: '10', maxConcurrency: '2', forwardPathQuery: true }),
    ).toEqual({
      rate_limit: { limit: 5, period: 'second', burst: 10 },
      max_concurrency: 2,
      forward_path_query: true,
    });
    expect(deliveryOptionsBody({ rateLimit: '100/hour' })).toEqual({ rate_limit: { limit: 100, period: 'hour' } });
    expect(deliveryOptionsBody({ rateLimit: false, maxConcurrency: false, forwardPathQuery: false })).toEqual({
      rate_limit: null,
      max_concurrency: null,
      forward_path_query: false,
    });
    expect(() => deliveryOptionsBody({ maxConcurrency: '0' })).toThrow(UsageError);
  });

  it('changes the burst alone keeping the stored limit and period, and needs a stored rate limit for it', () => {
    expect(needsStoredDelivery({ burst: '20' })).toBe(true);
    expect(needsStoredDelivery({ burst: '20', rateLimit: '5/second' })).toBe(false);
    const stored = { rate_limit: { limit: 5, period: 'minute' as const }, outbound_headers: undefined! };
    expect(deliveryOptionsBody({ burst: '20' }, { ...stored, delivery_policy: null })).toEqual({
      rate_limit: { limit: 5, period: 'minute', burst: 20 },
    });
    expect(() => deliveryOptionsBody({ burst: '20' }, { ...stored, rate_limit: null, delivery_policy: null })).toThrow(
      /--burst needs --rate-limit/,
    );
  });
});

describe('transform and pacing views', () => {
  it('shows whether there is a transform (its size, not its code) and the pacing', () => {
    const fields = Object.fromEntries(
      transformPacingFields({
        transform: 'a\nb\nc',
        has_transform: true,
        forward_path_query: true,
        rate_limit: { limit: 5, period: 'second' },
        max_concurrency: 2,
      }),
    );
    expect(fields).toEqual({
      transform: 'set (3 lines; --json shows the code)',
      'forward path/query': "yes (the transform's path and query)",
      'rate limit': '5/second, burst 5 (the limit)',
      'max concurrency': '2',
    });
    const none = Object.fromEntries(
      transformPacingFields({
        has_transform: false,
        forward_path_query: false,
        rate_limit: null,
        max_concurrency: null,
      }),
    );
    expect(none).toMatchObject({ transform: '- (webhooks go as received)', 'rate limit': '-', 'max concurrency': '-' });
    expect(none).not.toHaveProperty('pacing now');
  });

  it('prints the pacing state of one rule or destination when it has one', () => {
    const paced = {
      has_transform: false,
      forward_path_query: false,
      rate_limit: { limit: 10, period: 'second' as const },
      max_concurrency: 2,
    };
    const state = { effective_limit: 5, period: 'second' as const, in_flight: 2, waiting: 7, held_until: null };
    expect(Object.fromEntries(transformPacingFields({ ...paced, pacing_state: state }))['pacing now']).toBe(
      '5/second in force (halved after a 429; configured 10), 2 in flight, 7 waiting',
    );
    const held = { ...state, effective_limit: null, period: null, held_until: '2026-01-01T00:00:00.000Z' };
    const unpaced = { ...paced, rate_limit: null, max_concurrency: null, pacing_state: held };
    expect(Object.fromEntries(transformPacingFields(unpaced))['pacing now']).toBe(
      '2 in flight, 7 waiting, held until 2026-01-01T00:00:00.000Z (Retry-After)',
    );
    expect(Object.fromEntries(transformPacingFields({ ...paced, pacing_state: null }))).not.toHaveProperty(
      'pacing now',
    );
  });

  it('prints a test run: the returned request and logs, or the failure with its line and cause', () => {
    const ok = transformTestText({
      ok: true,
      request: { body: { text: 'hi' }, headers: { 'x-kind': 'chat' }, path: '/chat', query: { a: ['1', '2'] } },
      logs: 'one\ntwo\n',
    });
    expect(ok).toMatch(/path:\s+\/chat/);
    expect(ok).toMatch(/query:\s+a=1&a=2/);
    expect(ok).toContain('  x-kind: chat');
    expect(ok).toContain('body:\n  {\n    "text": "hi"\n  }');
    expect(ok).toContain('logs:\n  one\n  two');
    const failed = transformTestText({
      ok: false,
      error: { message: 'Error: boom', line: 3, cause: 'error' },
      logs: '',
    });
    expect(failed).toBe('The transform failed at line 3 (error): Error: boom\nlogs: -');
  });
});
