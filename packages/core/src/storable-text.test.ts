import { toStorableText } from './storable-text';

describe('storable text', () => {
  it('replaces every NUL with U+FFFD and leaves other text as it is', () => {
    expect(toStorableText('a\u0000b\u0000')).toBe('a\uFFFDb\uFFFD');
    expect(toStorableText('ünïcödé ✓ \u0001')).toBe('ünïcödé ✓ \u0001');
    expect(toStorableText(null)).toBeNull();
  });

  it('makes text decoded from any bytes storable', () => {
    const decoded = Buffer.from([0x7b, 0x00, 0xff, 0xc3, 0x28, 0x7d]).toString('utf8');
    expect(toStorableText(decoded)).toBe('{\uFFFD\uFFFD\uFFFD(}');
  });
});
