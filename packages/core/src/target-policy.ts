import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { BLOCKED_IPV4, BLOCKED_IPV6 } from './blocked-ranges';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export type AllowlistEntry = { kind: 'cidr'; range: [Address, number]; text: string } | { kind: 'host'; host: string };

/** Inclusive port range. */
export type PortRange = readonly [number, number];

export interface TargetPolicy {
  /** Allow every address (self-hosted relays that forward to internal services). */
  allowPrivate: boolean;
  allowlist: AllowlistEntry[];
  /** Ports a target may use (TARGET_ALLOWED_PORTS); unset: DEFAULT_TARGET_PORTS. */
  allowedPorts?: readonly PortRange[];
}

export type TargetRejection =
  'invalid_url' | 'unsupported_scheme' | 'credentials_in_url' | 'blocked_address' | 'blocked_host' | 'blocked_port';
export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: TargetRejection; message: string };
export type AddressCheck = { ok: true } | { ok: false; reason: 'blocked_address'; message: string };

export const MAX_TARGET_URL_LENGTH = 2048;
const HOLE_HINT = 'set TARGET_ALLOW_PRIVATE=true or add it to TARGET_ALLOWLIST to allow it';

const parsedRanges = (table: ReadonlyArray<readonly [string, string]>) =>
  table.map(([cidr, label]) => ({ range: ipaddr.parseCIDR(cidr), label }));
const V4 = parsedRanges(BLOCKED_IPV4);
const V6 = parsedRanges(BLOCKED_IPV6);

const normalizeHost = (host: string) => host.toLowerCase().replace(/\.$/, '');

// The web ports plus every unprivileged one: the privileged ports below 1024 are where internal
// services (SSH, SMTP, databases' admin ports, ...) listen, and no webhook receiver needs them.
export const DEFAULT_TARGET_PORTS = '80,443,1024-65535';

/** `80,443,1024-65535`: comma-separated ports and inclusive ranges, 1–65535 (port 0 never dials anything sane). */
export function parsePortPolicy(text: string | undefined): PortRange[] {
  return (text ?? DEFAULT_TARGET_PORTS)
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry): PortRange => {
      const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(entry);
      const low = Number(match?.[1]);
      const high = match?.[2] === undefined ? low : Number(match[2]);
      if (!match || low < 1 || high > 65_535 || low > high)
        throw new Error(`TARGET_ALLOWED_PORTS: "${entry}" is not a port or range within 1-65535`);
      return [low, high];
    });
}

const DEFAULT_PORT_RANGES = parsePortPolicy(DEFAULT_TARGET_PORTS);

// Names that never leave the local host or network: RFC 6761 `localhost`, RFC 6762 `.local`
// (mDNS), RFC 8375 `.home.arpa` and ICANN's reserved private `.internal`. Single-label names are
// resolved through the search list, i.e. to internal hosts too.
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa'];
const LOCAL_NAMES = new Set(['localhost', 'home.arpa']);

function localNameLabel(name: string): string | undefined {
  if (LOCAL_NAMES.has(name)) return name;
  const suffix = LOCAL_SUFFIXES.find((s) => name.endsWith(s));
  if (suffix) return `a ${suffix} name`;
  if (!name.includes('.')) return 'a single-label name';
  return undefined;
}

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
 * String-level check of a target URL: scheme, credentials, port, literal IP hosts and names that can
 * only be internal (checked before any lookup, so at save time too). Other host names are checked
 * later, on the address actually dialled.
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
  // `new URL` drops the scheme's default port, so '' is 80 or 443.
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const ports = policy.allowedPorts ?? DEFAULT_PORT_RANGES;
  if (port === 0 || !ports.some(([low, high]) => port >= low && port <= high)) {
    return {
      ok: false,
      reason: 'blocked_port',
      message: `Port ${port} is blocked by the target port policy (TARGET_ALLOWED_PORTS).`,
    };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const check = checkAddress(host, undefined, policy);
    if (!check.ok) return check;
    return { ok: true, url };
  }
  const local =
    policy.allowPrivate || isHostAllowlisted(host, policy) ? undefined : localNameLabel(normalizeHost(host));
  if (local !== undefined) {
    return { ok: false, reason: 'blocked_host', message: `${host} is ${local}, blocked as internal; ${HOLE_HINT}` };
  }
  return { ok: true, url };
}
