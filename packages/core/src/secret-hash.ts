import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { SecretKeyring } from './secret-box';

/**
 * A keyed hash of a secret's plaintext, stored beside its sealed value (docs/config-as-code.md, "Secrets"):
 * `relay apply` sends secret values, and the api tells an unchanged one from a new one without opening the
 * sealed value. HMAC-SHA-256 under a key derived (HKDF) from a SECRET_ENCRYPTION_KEYS key, so the hash is
 * worthless without the install's keys; the key id is written with it, so a rotated keyring keeps matching
 * old hashes while the old key stays listed.
 *
 * Form: `h1:<key id>:<base64url of the HMAC>`.
 */
const PREFIX = 'h1:';

const hashKey = (key: Buffer) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'relay secret hash v1', 32));

const mac = (key: Buffer, plaintext: string) =>
  createHmac('sha256', hashKey(key)).update(plaintext, 'utf8').digest('base64url');

/** The hash to store beside a secret sealed now (under the keyring's current key). */
export function secretHash(keyring: SecretKeyring, plaintext: string): string {
  return `${PREFIX}${keyring.current.id}:${mac(keyring.current.key, plaintext)}`;
}

/**
 * Whether `plaintext` is the secret `stored` hashes. No hash (a secret written before hashes were kept), an
 * unknown form, or a key no longer listed: false, so the secret counts as changed and is written again.
 */
export function secretHashMatches(
  keyring: SecretKeyring | undefined,
  stored: string | null,
  plaintext: string,
): boolean {
  if (keyring === undefined || stored === null || !stored.startsWith(PREFIX)) return false;
  const [id, digest] = stored.slice(PREFIX.length).split(':');
  const key = keyring.keys.get(id ?? '');
  if (key === undefined || digest === undefined) return false;
  const expected = Buffer.from(mac(key, plaintext));
  const given = Buffer.from(digest);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
