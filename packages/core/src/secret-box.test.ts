import { randomBytes } from 'node:crypto';
import { isSealed, needsReseal, openSecret, parseSecretKeys, sealSecret, sealedKeyId } from './secret-box';

const key = () => randomBytes(32).toString('base64');

describe('secret box (SECRET_ENCRYPTION_KEYS)', () => {
  const [k1, k0] = [key(), key()];
  const ring = parseSecretKeys(`k1:${k1}, k0:${k0}`)!;

  it('seals with the first key, naming it, and opens again', () => {
    const sealed = sealSecret(ring, 'whsec_the-secret');
    expect(isSealed(sealed)).toBe(true);
    expect(sealedKeyId(sealed)).toBe('k1');
    expect(sealed).not.toContain('the-secret');
    expect(openSecret(ring, sealed)).toBe('whsec_the-secret');
    // A fresh IV each time: equal secrets do not give equal rows.
    expect(sealSecret(ring, 'whsec_the-secret')).not.toBe(sealed);
  });

  it('opens values sealed with an older listed key, and says which need re-sealing', () => {
    const old = sealSecret(parseSecretKeys(`k0:${k0}`)!, 'older');
    expect(openSecret(ring, old)).toBe('older');
    expect(needsReseal(ring, old)).toBe(true);
    expect(needsReseal(ring, sealSecret(ring, 'x'))).toBe(false);
    expect(needsReseal(ring, 'plaintext-from-before')).toBe(true);
  });

  it('reads plaintext rows from before encryption as they are', () => {
    expect(openSecret(undefined, 'plain-old-secret')).toBe('plain-old-secret');
    expect(openSecret(ring, 'plain-old-secret')).toBe('plain-old-secret');
  });

  it('refuses an unknown key, a tampered value and a relabelled key id', () => {
    const sealed = sealSecret(ring, 'secret');
    expect(() => openSecret(parseSecretKeys(`k9:${key()}`), sealed)).toThrow('"k1"');
    expect(() => openSecret(undefined, sealed)).toThrow('SECRET_ENCRYPTION_KEYS');
    const data = Buffer.from(sealed.split(':')[3]!, 'base64');
    data[data.length - 1]! ^= 1;
    expect(() => openSecret(ring, `enc:v1:k1:${data.toString('base64')}`)).toThrow();
    const same = parseSecretKeys(`k1:${k1},k2:${k1}`)!;
    expect(() => openSecret(same, sealed.replace('enc:v1:k1:', 'enc:v1:k2:'))).toThrow();
  });

  it('parses the setting strictly', () => {
    expect(parseSecretKeys(undefined)).toBeUndefined();
    expect(parseSecretKeys('  ')).toBeUndefined();
    expect(ring.current.id).toBe('k1');
    expect([...ring.keys.keys()]).toEqual(['k1', 'k0']);
    expect(() => parseSecretKeys(`k1:${randomBytes(16).toString('base64')}`)).toThrow('not 32');
    expect(() => parseSecretKeys(key())).toThrow('<key id>:<base64 key>');
    expect(() => parseSecretKeys(`a:${k1},a:${k0}`)).toThrow('twice');
  });
});
