import ipaddr from 'ipaddr.js';

const isLoopback = (hostname: string): boolean => {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === 'loopback';
};

/**
 * An issuer the relay may trust: https, or plain http only on a loopback address (a provider on this
 * machine, tests). Anywhere else plain http would let the network rewrite discovery and keys.
 */
export function issuerAllowed(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'https:') return true;
  return parsed.protocol === 'http:' && isLoopback(parsed.hostname);
}
