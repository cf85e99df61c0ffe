import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('spells values equal as JSON alike, whatever their key order, at any depth', () => {
    const a = { b: 1, a: { d: [{ y: 1, x: 2 }], c: null }, '10': true, '2': 'two' };
    const b = { '2': 'two', a: { c: null, d: [{ x: 2, y: 1 }] }, '10': true, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"2":"two","10":true,"a":{"c":null,"d":[{"x":2,"y":1}]},"b":1}');
  });

  it('keeps what differs different: array order, values, types, extra keys', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 1, b: 2 }));
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1}}');
  });

  it('compares bytes as bytes', () => {
    expect(canonicalJson(Buffer.from('ab'))).toBe(canonicalJson(Buffer.from('ab')));
    expect(canonicalJson(Buffer.from('ab'))).not.toBe(canonicalJson(Buffer.from('ba')));
  });
});
