import { randomBytes } from 'node:crypto';
import { parseSecretKeys } from './secret-box';
import { secretHash, secretHashMatches } from './secret-hash';

describe('secret hash', () => {
  const k1 = randomBytes(32).toString('base64');
  const k0 = randomBytes(32).toString('base64');
  const ring = parseSecretKeys(`k1:${k1}, k0:${k0}`)!;

  it('matches the same plaintext only, and never shows it', () => {
    const hash = secretHash(ring, 'whsec_the-secret-value');
    expect(hash).toMatch(/^h1:k1:[A-Za-z0-9_-]+$/);
    expect(hash).not.toContain('the-secret-value');
    expect(secretHashMatches(ring, hash, 'whsec_the-secret-value')).toBe(true);
    expect(secretHashMatches(ring, hash, 'whsec_another-value')).toBe(false);
  });

  it('keeps matching after a key rotation while the old key is listed', () => {
    const old = secretHash(parseSecretKeys(`k0:${k0}`)!, 'a-secret-of-16-chars');
    expect(secretHashMatches(ring, old, 'a-secret-of-16-chars')).toBe(true);
    expect(secretHashMatches(parseSecretKeys(`k1:${k1}`), old, 'a-secret-of-16-chars')).toBe(false);
  });

  it('counts a missing hash, another key set or no keys as changed', () => {
    expect(secretHashMatches(ring, null, 'x')).toBe(false);
    expect(secretHashMatches(undefined, secretHash(ring, 'x'), 'x')).toBe(false);
    expect(secretHashMatches(parseSecretKeys(`k1:${k0}`), secretHash(ring, 'x'), 'x')).toBe(false);
  });
});
