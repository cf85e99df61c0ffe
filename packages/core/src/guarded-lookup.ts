import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { checkAddress, type TargetPolicy } from './target-policy';

export class TargetBlockedError extends Error {
  readonly code = 'ERR_TARGET_BLOCKED';
  constructor(message: string) {
    super(message);
    this.name = 'TargetBlockedError';
  }
}

type LookupAll = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

// The `lookup` of the delivery agents: the policy is applied to the addresses actually dialled,
// so a name that resolves (or re-resolves, DNS rebinding) to a private address is refused. Every
// address of a multi-record answer must pass, since the socket may try any of them.
export function createGuardedLookup(policy: TargetPolicy, resolve: LookupAll = dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (callback as (e: Error) => void)(err);
      for (const { address } of addresses) {
        const check = checkAddress(address, hostname, policy);
        if (!check.ok)
          return (callback as (e: Error) => void)(new TargetBlockedError(`${hostname} resolves to ${check.message}`));
      }
      if (addresses.length === 0) {
        return (callback as (e: Error) => void)(
          Object.assign(new Error(`${hostname} has no addresses`), { code: 'ENOTFOUND' }),
        );
      }
      if (options.all) return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      (callback as (e: null, a: string, f: number) => void)(null, first!.address, first!.family);
    });
  };
}
