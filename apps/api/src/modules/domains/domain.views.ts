import type { DomainRecord } from '@relay/db';
import { isoOrNull } from '../../http/timestamps';
import { verificationRecordName, type DomainCheck } from './dns-verifier';

export function domainView(d: DomainRecord, canonicalHost: string) {
  return {
    id: d.id,
    domain: d.domain,
    status: d.status,
    verification_token: d.verificationToken,
    records: [
      { type: 'CNAME' as const, name: d.domain, value: canonicalHost },
      { type: 'TXT' as const, name: verificationRecordName(d.domain), value: d.verificationToken },
    ],
    created_at: d.createdAt.toISOString(),
    verified_at: isoOrNull(d.verifiedAt),
    last_checked_at: isoOrNull(d.lastCheckedAt),
    last_check_error: d.lastCheckError,
  };
}

const recordView = (r: DomainCheck['cname']) => ({
  ok: r.ok,
  name: r.name,
  expected: r.expected,
  found: r.found,
  problem: r.problem,
});

export const checkView = (c: DomainCheck) => ({ cname: recordView(c.cname), txt: recordView(c.txt) });

const problemText = (r: DomainCheck['cname']) =>
  r.problem === 'missing'
    ? 'missing'
    : r.problem === 'wrong'
      ? `is ${r.found.join(', ') || 'empty'}, expected ${r.expected}`
      : `lookup failed (${r.problem})`;

/** One line saying which record is missing or wrong, for the problem detail and the domain's row. */
export function checkSummary(c: DomainCheck): string {
  return (['cname', 'txt'] as const)
    .filter((k) => !c[k].ok)
    .map((k) => `${k.toUpperCase()} ${c[k].name}: ${problemText(c[k])}`)
    .join('; ');
}
