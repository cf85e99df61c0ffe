import { jsonTextDepth, jsonValueDepth } from './json-depth';

describe('JSON depth', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(jsonTextDepth('1')).toBe(0);
    expect(jsonTextDepth('[]')).toBe(1);
    expect(jsonTextDepth('{"a":[{"b":"[[[{{"}]}')).toBe(3);
    expect(jsonTextDepth('{"a":"\\\\","b":["\\"[["]}')).toBe(2);
    expect(jsonTextDepth(Buffer.from('{"é":[["x"]]}'))).toBe(3);
    expect(jsonValueDepth(1)).toBe(0);
    expect(jsonValueDepth({ a: [{ b: '[[[' }], c: [] })).toBe(3);
  });

  it('measures a payload far deeper than the stack allows, and stops early when told', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    expect(jsonTextDepth(deep)).toBe(200_000);
    expect(jsonTextDepth(deep, 10)).toBe(11);
    const value = JSON.parse(deep) as unknown;
    expect(jsonValueDepth(value)).toBe(200_000);
    expect(jsonValueDepth(value, 128)).toBe(129);
  });
});
