import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { optionalText } from './config-schema';

/**
 * Keys that encrypt stored secrets (SECRET_ENCRYPTION_KEYS): the first seals, every one opens, so a
 * new key goes first and the old one stays listed until every row is re-sealed.
 */
export interface SecretKeyring {
  current: { id: string; key: Buffer };
  keys: ReadonlyMap<string, Buffer>;
}

// Sealed form: `enc:v1:<key id>:<base64 of 12-byte IV, 16-byte GCM tag, ciphertext>`. The key id
// names the key that sealed it, so a rotated key keeps opening old rows.
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** `kid1:base64key,kid0:base64oldkey`; each key is 32 bytes (AES-256), ids are [A-Za-z0-9_-]. */
export function parseSecretKeys(text: string | undefined): SecretKeyring | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const keys = new Map<string, Buffer>();
  for (const entry of text.split(',').map((e) => e.trim())) {
    const match = /^([A-Za-z0-9_-]{1,32}):([A-Za-z0-9+/=]+)$/.exec(entry);
    if (!match) throw new Error(`SECRET_ENCRYPTION_KEYS: "${entry.split(':')[0]}…" is not <key id>:<base64 key>`);
    const key = Buffer.from(match[2]!, 'base64');
    if (key.length !== 32)
      throw new Error(
        `SECRET_ENCRYPTION_KEYS: key "${match[1]}" is ${key.length} bytes, not 32 (openssl rand -base64 32)`,
      );
    if (keys.has(match[1]!)) throw new Error(`SECRET_ENCRYPTION_KEYS: key id "${match[1]}" is listed twice`);
    keys.set(match[1]!, key);
  }
  const [id, key] = [...keys][0]!;
  return { current: { id, key }, keys };
}

export const isSealed = (stored: string) => stored.startsWith(PREFIX);

/** The key id a stored value was sealed with; undefined for a plaintext value (written before encryption). */
export const sealedKeyId = (stored: string) =>
  isSealed(stored) ? stored.slice(PREFIX.length).split(':')[0] : undefined;

export function sealSecret(keyring: SecretKeyring, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyring.current.key, iv);
  // The key id is authenticated too: a value cannot be relabelled to another key.
  cipher.setAAD(Buffer.from(keyring.current.id));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${PREFIX}${keyring.current.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

/**
 * The plaintext of a stored secret. Plaintext rows from before encryption are read as they are
 * (they are re-sealed at the api's start); a sealed one needs its key.
 */
export function openSecret(keyring: SecretKeyring | undefined, stored: string): string {
  if (!isSealed(stored)) return stored;
  const [id, data] = stored.slice(PREFIX.length).split(':');
  const key = keyring?.keys.get(id ?? '');
  if (!key) throw new Error(`stored secret is sealed with key "${id}", which SECRET_ENCRYPTION_KEYS does not list`);
  const raw = Buffer.from(data ?? '', 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(id!));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/** Whether a stored value should be re-sealed: plaintext, or sealed with a key that is no longer current. */
export const needsReseal = (keyring: SecretKeyring, stored: string) => sealedKeyId(stored) !== keyring.current.id;

/** The SECRET_ENCRYPTION_KEYS setting of a process's config schema: a bad value stops the start. */
export const secretKeysSetting = () =>
  optionalText().transform((text, ctx): SecretKeyring | undefined => {
    try {
      return parseSecretKeys(text);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message.replace(/^SECRET_ENCRYPTION_KEYS: /, '') });
      return z.NEVER;
    }
  });
