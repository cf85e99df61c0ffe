import { AppError } from './errors';
import { pathAfterSource, queryObject, sourceFromPath } from './source';

describe('sourceFromPath', () => {
  it('is the first path segment, decoded, without the query', () => {
    expect(sourceFromPath('/github/org/repo?x=1')).toBe('github');
    expect(sourceFromPath('//my%2Dsource')).toBe('my-source');
    expect(sourceFromPath('/')).toBeUndefined();
  });

  it('refuses a path that is not valid percent-encoding in any segment as not_found', () => {
    for (const path of ['/%ff', '/github%ff/x', '/github/%E0%A4%A']) {
      expect(() => sourceFromPath(path)).toThrow(AppError);
      expect(() => sourceFromPath(path)).toThrow(expect.objectContaining({ code: 'not_found' }));
    }
  });
});

describe('pathAfterSource', () => {
  test.each([
    ['/github', ''],
    ['/', ''],
    ['', ''],
    ['/github/', '/'],
    ['/github/org/repo', '/org/repo'],
    ['/github/a%20b?x=1', '/a%20b'],
  ])('%s → %s', (path, expected) => {
    expect(pathAfterSource(path)).toBe(expected);
  });
});

describe('queryObject', () => {
  test('a string per key, an array for a repeated key, decoded', () => {
    expect(queryObject('?env=prod&id=1&id=2&q=a+b%21&empty=')).toEqual({
      env: 'prod',
      id: ['1', '2'],
      q: 'a b!',
      empty: '',
    });
    expect(queryObject('')).toEqual({});
  });

  test('__proto__ stays an ordinary key', () => {
    const q = queryObject('__proto__=x');
    expect(Object.getPrototypeOf(q)).toBe(Object.prototype);
    expect(Object.keys(q)).toEqual(['__proto__']);
  });
});
