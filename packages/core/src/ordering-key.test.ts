import { createHash } from 'node:crypto';
import { MAX_ORDERING_KEY_LENGTH, orderingKeyOf } from './ordering-key';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('ordering keys', () => {
  it('is one key for the whole source when the option names neither header nor pointer', () => {
    expect(orderingKeyOf({}, { 'x-key': 'a' }, json({ id: 1 }))).toBe('');
  });

  it('takes a header, matched case-insensitively against the stored lower-case headers', () => {
    expect(orderingKeyOf({ header: 'X-Key' }, { 'x-key': 'order-7' }, json({}))).toBe('order-7');
    expect(orderingKeyOf({ header: 'x-key' }, {}, json({}))).toBe('');
  });

  it('takes the value at a JSON pointer as text; no value or no JSON is the empty key', () => {
    expect(orderingKeyOf({ json_pointer: '/data/customer' }, {}, json({ data: { customer: 'c1' } }))).toBe('c1');
    expect(orderingKeyOf({ json_pointer: '/n' }, {}, json({ n: 42 }))).toBe('42');
    expect(orderingKeyOf({ json_pointer: '/n' }, {}, json({ n: { deep: 1 } }))).toBe('');
    expect(orderingKeyOf({ json_pointer: '/n' }, {}, json({}))).toBe('');
    expect(orderingKeyOf({ json_pointer: '/n' }, {}, Buffer.from('not json'))).toBe('');
  });

  it('hashes a key that is too long or holds a NUL', () => {
    const long = 'k'.repeat(MAX_ORDERING_KEY_LENGTH + 1);
    const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    expect(orderingKeyOf({ header: 'x-key' }, { 'x-key': long }, json({}))).toBe(sha(long));
    expect(orderingKeyOf({ json_pointer: '/k' }, {}, json({ k: 'a\u0000b' }))).toBe(sha('a\u0000b'));
  });
});
