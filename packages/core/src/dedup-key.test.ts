import { createHash } from 'node:crypto';
import { dedupKeyOf, MAX_DEDUP_KEY_LENGTH } from './dedup-key';
import { jsonPointerGet, jsonPointerKeyText, jsonPointerTokens } from './json-pointer';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const window_seconds = 86_400;

describe('JSON pointers (RFC 6901)', () => {
  // The RFC's own example document and pointers (section 5).
  const doc = {
    foo: ['bar', 'baz'],
    '': 0,
    'a/b': 1,
    'c%d': 2,
    'e^f': 3,
    'g|h': 4,
    'i\\j': 5,
    'k"l': 6,
    ' ': 7,
    'm~n': 8,
  };

  it('resolves the examples of RFC 6901, with ~1 and ~0 unescaped', () => {
    expect(jsonPointerGet(doc, '')).toBe(doc);
    expect(jsonPointerGet(doc, '/foo')).toEqual(['bar', 'baz']);
    expect(jsonPointerGet(doc, '/foo/0')).toBe('bar');
    expect(jsonPointerGet(doc, '/')).toBe(0);
    expect(jsonPointerGet(doc, '/a~1b')).toBe(1);
    expect(jsonPointerGet(doc, '/c%d')).toBe(2);
    expect(jsonPointerGet(doc, '/e^f')).toBe(3);
    expect(jsonPointerGet(doc, '/g|h')).toBe(4);
    expect(jsonPointerGet(doc, '/i\\j')).toBe(5);
    expect(jsonPointerGet(doc, '/k"l')).toBe(6);
    expect(jsonPointerGet(doc, '/ ')).toBe(7);
    expect(jsonPointerGet(doc, '/m~0n')).toBe(8);
  });

  it('unescapes ~1 before ~0, so ~01 is a literal ~1', () => {
    expect(jsonPointerTokens('/~01')).toEqual(['~1']);
    expect(jsonPointerGet({ '~1': 'tilde-one', '/': 'slash' }, '/~01')).toBe('tilde-one');
  });

  it('leads nowhere for missing members, bad indexes, inherited properties and pointers without a slash', () => {
    expect(jsonPointerGet(doc, '/missing')).toBeUndefined();
    expect(jsonPointerGet(doc, '/foo/2')).toBeUndefined();
    expect(jsonPointerGet(doc, '/foo/01')).toBeUndefined();
    expect(jsonPointerGet(doc, '/foo/-')).toBeUndefined();
    expect(jsonPointerGet(doc, '/foo/0/x')).toBeUndefined();
    expect(jsonPointerGet({}, '/constructor')).toBeUndefined();
    expect(jsonPointerGet({}, '/__proto__')).toBeUndefined();
    expect(jsonPointerGet(doc, 'foo')).toBeUndefined();
  });

  it('takes strings as they are, numbers and booleans as JSON text, and nothing else as a key', () => {
    const payload = { s: 'evt_1', n: 42, f: 1.5, t: true, z: null, o: { a: 1 }, a: [1] };
    expect(jsonPointerKeyText(payload, '/s')).toBe('evt_1');
    expect(jsonPointerKeyText(payload, '/n')).toBe('42');
    expect(jsonPointerKeyText(payload, '/f')).toBe('1.5');
    expect(jsonPointerKeyText(payload, '/t')).toBe('true');
    expect(jsonPointerKeyText(payload, '/z')).toBeUndefined();
    expect(jsonPointerKeyText(payload, '/o')).toBeUndefined();
    expect(jsonPointerKeyText(payload, '/a')).toBeUndefined();
    expect(jsonPointerKeyText(payload, '/none')).toBeUndefined();
  });
});

describe('deduplication keys', () => {
  it('takes each preset from where its sender puts the delivery id', () => {
    const headers = {
      'x-github-delivery': 'gh-1',
      'x-shopify-webhook-id': 'shop-1',
      'webhook-id': 'msg_1',
    };
    const body = json({ id: 'evt_1', object: 'event' });
    expect(dedupKeyOf({ preset: 'github', window_seconds }, headers, body)).toBe('gh-1');
    expect(dedupKeyOf({ preset: 'stripe', window_seconds }, headers, body)).toBe('evt_1');
    expect(dedupKeyOf({ preset: 'shopify', window_seconds }, headers, body)).toBe('shop-1');
    expect(dedupKeyOf({ preset: 'standard_webhooks', window_seconds }, headers, body)).toBe('msg_1');
  });

  it('reads a custom header case-insensitively and a custom JSON pointer with escapes', () => {
    const body = json({ 'a/b': { 'c~d': 7 } });
    expect(dedupKeyOf({ header: 'X-Request-Id', window_seconds }, { 'x-request-id': 'r1' }, body)).toBe('r1');
    expect(dedupKeyOf({ json_pointer: '/a~1b/c~0d', window_seconds }, {}, body)).toBe('7');
  });

  it('gives no key for an absent or empty header, a missing value, null, an object or a body that is no JSON', () => {
    const body = json({ id: null, data: { id: 'x' } });
    expect(dedupKeyOf({ preset: 'github', window_seconds }, {}, body)).toBeUndefined();
    expect(dedupKeyOf({ preset: 'github', window_seconds }, { 'x-github-delivery': '' }, body)).toBeUndefined();
    expect(dedupKeyOf({ preset: 'stripe', window_seconds }, {}, body)).toBeUndefined();
    expect(dedupKeyOf({ json_pointer: '/data', window_seconds }, {}, body)).toBeUndefined();
    expect(dedupKeyOf({ json_pointer: '/nope', window_seconds }, {}, body)).toBeUndefined();
    expect(dedupKeyOf({ json_pointer: '/id', window_seconds }, {}, Buffer.from('{not json'))).toBeUndefined();
  });

  it('stores a key over the length limit, or one with a NUL, as its SHA-256', () => {
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    const atLimit = 'k'.repeat(MAX_DEDUP_KEY_LENGTH);
    const over = 'k'.repeat(MAX_DEDUP_KEY_LENGTH + 1);
    expect(dedupKeyOf({ json_pointer: '/id', window_seconds }, {}, json({ id: atLimit }))).toBe(atLimit);
    expect(dedupKeyOf({ json_pointer: '/id', window_seconds }, {}, json({ id: over }))).toBe(sha(over));
    expect(dedupKeyOf({ json_pointer: '/id', window_seconds }, {}, json({ id: 'a\u0000b' }))).toBe(sha('a\u0000b'));
  });
});
