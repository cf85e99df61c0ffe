import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A custom domain as stored: lowercase, IDN as punycode, no trailing dot. Returns the reason when it
 * cannot be one: an IP literal, a single label, a bad label, or the canonical host (or one of its
 * subdomains, which are organizations' own hosts).
 */
export function normaliseDomain(
  input: string,
  canonicalHost: string | undefined,
): { ok: true; domain: string } | { ok: false; reason: string } {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '' || /[\s/:@]/.test(trimmed)) return { ok: false, reason: 'not a host name' };
  if (isIP(trimmed) || isIP(trimmed.replace(/^\[|\]$/g, '')))
    return { ok: false, reason: 'IP addresses cannot be custom domains' };
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (ascii === '') return { ok: false, reason: 'not a valid domain name' };
  const labels = ascii.split('.');
  if (labels.length < 2) return { ok: false, reason: 'a domain needs at least two labels' };
  if (ascii.length > 253 || !labels.every((l) => LABEL.test(l)))
    return { ok: false, reason: 'not a valid domain name' };
  if (/^\d+$/.test(labels.at(-1)!)) return { ok: false, reason: 'IP addresses cannot be custom domains' };
  const canonical = canonicalHost?.toLowerCase().replace(/\.$/, '');
  if (canonical && (ascii === canonical || ascii.endsWith(`.${canonical}`)))
    return { ok: false, reason: 'the canonical ingest host and its subdomains cannot be custom domains' };
  return { ok: true, domain: ascii };
}
