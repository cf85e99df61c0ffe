import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// Bearer tokens look like `ts_<prefix>_<secret>`: the prefix is stored in clear to find the row and
// to show the user which token is which; only a SHA-256 of the 256-bit secret is stored. A slow
// hash adds nothing for secrets of this entropy and would cost every request.
const TOKEN = /^ts_([A-Za-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

export interface IssuedToken {
  token: string;
  prefix: string;
  secretHash: string;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function issueToken(): IssuedToken {
  const prefix = randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').slice(0, 12);
  const secret = randomBytes(32).toString('base64url');
  return { token: `ts_${prefix}_${secret}`, prefix, secretHash: hashSecret(secret) };
}

export function parseToken(token: string): { prefix: string; secret: string } | null {
  const match = TOKEN.exec(token);
  return match ? { prefix: match[1]!, secret: match[2]! } : null;
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
