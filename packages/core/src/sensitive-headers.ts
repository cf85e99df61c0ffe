import { z } from 'zod';
import { optionalText } from './config-schema';

/**
 * Inbound headers that carry a credential: stored and forwarded as any other header, but masked in
 * every read (events API, export, and so every client) and left out of the search text, so neither a
 * reader nor a search probe can recover the value. SENSITIVE_HEADERS adds names; none can be removed.
 */
export const DEFAULT_SENSITIVE_HEADERS = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'apikey',
  'x-apikey',
  'x-auth-token',
  'x-access-token',
  'x-token',
  'x-secret',
  'x-client-secret',
  'x-webhook-secret',
  'x-webhook-token',
  'x-hook-secret',
  'x-gitlab-token',
] as const;

// Credentials in the `<scheme> <token>` syntax (RFC 9110 §11.4): the scheme stays visible, so a reader can
// tell a Bearer token was sent. Any other header's value is masked whole (a part of it may be the secret).
const SCHEMED = new Set(['authorization', 'proxy-authorization']);
const MASK = '[masked]';

// An RFC 9110 field name (token).
const FIELD_NAME = /^[a-z0-9!#$%&'*+.^_`|~-]+$/;

/** The built-in names plus `extra` (lower-cased, without repeats). */
export function sensitiveHeaderNames(extra: readonly string[] = []): readonly string[] {
  return [...new Set([...DEFAULT_SENSITIVE_HEADERS, ...extra.map((name) => name.toLowerCase())])];
}

/** The SENSITIVE_HEADERS setting: comma-separated names added to the built-in list; the whole list is the value. */
export const sensitiveHeadersSetting = () =>
  optionalText().transform((value, ctx): readonly string[] => {
    const names = (value ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
    const bad = names.filter((name) => !FIELD_NAME.test(name));
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `not header names: ${bad.join(', ')}` });
      return z.NEVER;
    }
    return sensitiveHeaderNames(names);
  });

/** Stored headers as every reader sees them: the values of the sensitive ones masked. */
export function maskedHeaders(
  stored: Record<string, string>,
  sensitive: readonly string[] = DEFAULT_SENSITIVE_HEADERS,
): Record<string, string> {
  const out = { ...stored };
  for (const name of sensitive) {
    const value = out[name];
    if (value === undefined) continue;
    const scheme = SCHEMED.has(name) ? /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) +\S/.exec(value)?.[1] : undefined;
    out[name] = scheme ? `${scheme} ${MASK}` : MASK;
  }
  return out;
}
