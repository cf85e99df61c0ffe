import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { BLOCKED_IPV4, BLOCKED_IPV6 } from './blocked-ranges';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export type AllowlistEntry = { kind: 'cidr'; range: [Address, number]; text: string } | { kind: 'host'; host: string };

export interface TargetPolicy {
  /** Allow every address (self-hosted relays that forward to internal services). */
  allowPrivate: boolean;
  allowlist: AllowlistEntry[];
}

export type TargetRejection = 'invalid_url' | 'unsupported_scheme' | 'credentials_in_url' | 'blocked_address';
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: TargetRejection; message: string };
export type AddressCheck = { ok: true } | { ok: false; reason: 'blocked_address'; message: string };

export const MAX_TARGET_URL_LENGTH = 2048;
const HOLE_HINT = 'set TARGET_ALLOW_PRIVATE=true or add it to TARGET_ALLOWLIST to allow it';

const parsedRanges = (table: ReadonlyArray<readonly [string, string]>) =>
  table.map(([cidr, label]) => ({ range: ipaddr.parseCIDR(cidr), label }));
const V4 = parsedRanges(BLOCKED_IPV4);
const V6 = parsedRanges(BLOCKED_IPV6);

const normalizeHost = (host: string) => host.toLowerCase().replace(/\.$/, '');

/** Comma-separated CIDRs, single IPs and host names (`*.suffix` matches any subdomain). */
export function parseAllowlist(text: string | undefined): AllowlistEntry[] {
  if (text === undefined) return [];
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry): AllowlistEntry => {
      if (entry.includes('/')) {
        try {
          return { kind: 'cidr', range: ipaddr.parseCIDR(entry), text: entry };
        } catch {
          throw new Error(`TARGET_ALLOWLIST: "${entry}" is not a valid CIDR range`);
        }
      }
      if (ipaddr.isValid(entry) && isIP(entry) !== 0) {
        const address = ipaddr.parse(entry);
        return { kind: 'cidr', range: [address, address.kind() === 'ipv4' ? 32 : 128], text: entry };
      }
      if (!/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(entry)) {
        throw new Error(`TARGET_ALLOWLIST: "${entry}" is neither a CIDR, an IP address nor a host name`);
      }
      return { kind: 'host', host: normalizeHost(entry) };
    });
}

export function isHostAllowlisted(host: string, policy: TargetPolicy): boolean {
  const name = normalizeHost(host);
  return policy.allowlist.some((entry) => {
    if (entry.kind !== 'host') return false;
    if (entry.host.startsWith('*.')) return name.endsWith(entry.host.slice(1)) && name.length > entry.host.length - 1;
    return name === entry.host;
  });
}

function blockedLabel(address: Address): string | undefined {
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    // An IPv4-mapped address reaches the IPv4 it wraps: judge that one.
    if (v6.isIPv4MappedAddress()) return blockedLabel(v6.toIPv4Address());
    const hit = V6.find(({ range }) => v6.match(range as [ipaddr.IPv6, number]));
    if (hit) return hit.label;
    return v6.range() === 'unicast' ? undefined : v6.range();
  }
  const v4 = address as ipaddr.IPv4;
  const hit = V4.find(({ range }) => range[0].kind() === 'ipv4' && v4.match(range as [ipaddr.IPv4, number]));
  if (hit) return hit.label;
  return v4.range() === 'unicast' ? undefined : v4.range();
}

function allowlistedAddress(address: Address, policy: TargetPolicy): boolean {
  const candidates: Address[] = [address];
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    candidates.push((address as ipaddr.IPv6).toIPv4Address());
  return policy.allowlist.some(
    (entry) =>
      entry.kind === 'cidr' && candidates.some((c) => c.kind() === entry.range[0].kind() && c.match(entry.range)),
  );
}

/** Whether a target may be dialled at `ip`; `host` is the name being dialled, for host allowlisting. */
export function checkAddress(ip: string, host: string | undefined, policy: TargetPolicy): AddressCheck {
  if (policy.allowPrivate) return { ok: true };
  if (host !== undefined && isHostAllowlisted(host, policy)) return { ok: true };
  let address: Address;
  try {
    address = ipaddr.parse(ip.replace(/^\[|\]$/g, '').split('%')[0]!);
  } catch {
    return { ok: false, reason: 'blocked_address', message: `${ip} is not an IP address` };
  }
  const label = blockedLabel(address);
  if (label === undefined || allowlistedAddress(address, policy)) return { ok: true };
  return {
    ok: false,
    reason: 'blocked_address',
    message: `${ip} is a loopback/private/reserved address (${label}); ${HOLE_HINT}`,
  };
}

/**
 * String-level check of a target URL: scheme, credentials, and literal IP hosts (checked before any
 * lookup). Host names are checked later, on the address actually dialled.
 */
export function checkTargetUrl(raw: string, policy: TargetPolicy): UrlCheck {
  if (raw.length > MAX_TARGET_URL_LENGTH)
    return { ok: false, reason: 'invalid_url', message: `The URL is longer than ${MAX_TARGET_URL_LENGTH} characters.` };
  let url: URL;
  try {
    // WHATWG URL normalises odd IPv4 literals (2130706433, 0x7f.1, 0177.0.0.1, 127.1) to dotted form.
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid_url', message: 'The target is not a valid absolute URL.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      reason: 'unsupported_scheme',
      message: `Only http and https targets are allowed, not ${url.protocol.replace(/:$/, '')}.`,
    };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'credentials_in_url', message: 'The target URL must not contain credentials.' };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const check = checkAddress(host, undefined, policy);
    if (!check.ok) return check;
  }
  return { ok: true, url };
}
