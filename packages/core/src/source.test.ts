import { AppError } from './errors';
import { sourceFromPath } from './source';

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
