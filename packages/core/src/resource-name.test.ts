import { firstFreeName, RESOURCE_NAME, RESOURCE_NAME_MAX } from './resource-name';

describe('firstFreeName', () => {
  it('takes the default when free, else the first free numbered suffix', () => {
    expect(firstFreeName('github', new Set())).toBe('github');
    expect(firstFreeName('github', new Set(['github']))).toBe('github-2');
    expect(firstFreeName('github', new Set(['github', 'github-2', 'github-4']))).toBe('github-3');
  });

  it('shortens a long default so the suffix fits and the name stays valid', () => {
    const long = 'a'.repeat(RESOURCE_NAME_MAX);
    const name = firstFreeName(long, new Set([long]));
    expect(name).toHaveLength(RESOURCE_NAME_MAX);
    expect(name.endsWith('-2')).toBe(true);
    expect(RESOURCE_NAME.test(name)).toBe(true);
  });
});
