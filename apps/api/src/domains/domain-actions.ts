import { randomBytes } from 'node:crypto';
import { AppError, type Principal } from '@relay/core';
import type { AuditRepository, DomainRecord, DomainRepository } from '@relay/db';
import { recordAudit } from '../auth/audit-actor';
import { verificationRecordName, type DomainCheck, type DomainVerifier } from './dns-verifier';
import { normaliseDomain } from './domain-name';
import { isoOrNull as iso } from '../http/timestamps';

export interface DomainDeps {
  domains: DomainRepository;
  audit: AuditRepository;
  /** INGEST_CANONICAL_HOST; custom domains are off without it. */
  canonicalHost: string | undefined;
  verify: DomainVerifier | undefined;
  now?: () => Date;
}

export function domainView(d: DomainRecord, canonicalHost: string) {
  return {
    id: d.id,
    domain: d.domain,
    status: d.status,
    verification_token: d.verificationToken,
    records: [
      { type: 'CNAME', name: d.domain, value: canonicalHost },
      { type: 'TXT', name: verificationRecordName(d.domain), value: d.verificationToken },
    ],
    created_at: d.createdAt.toISOString(),
    verified_at: iso(d.verifiedAt),
    last_checked_at: iso(d.lastCheckedAt),
    last_check_error: d.lastCheckError,
  };
}

const checkView = (c: DomainCheck) => ({
  cname: {
    ok: c.cname.ok,
    name: c.cname.name,
    expected: c.cname.expected,
    found: c.cname.found,
    problem: c.cname.problem,
  },
  txt: { ok: c.txt.ok, name: c.txt.name, expected: c.txt.expected, found: c.txt.found, problem: c.txt.problem },
});

function summary(c: DomainCheck): string {
  return (['cname', 'txt'] as const)
    .filter((k) => !c[k].ok)
    .map(
      (k) =>
        `${k.toUpperCase()} ${c[k].name}: ${c[k].problem === 'missing' ? 'missing' : c[k].problem === 'wrong' ? `is ${c[k].found.join(', ') || 'empty'}, expected ${c[k].expected}` : `lookup failed (${c[k].problem})`}`,
    )
    .join('; ');
}

// Custom ingest domains of an organization: create (normalised, pending, with the records to add),
// verify (both DNS records → active; otherwise still pending, saying which record is wrong), delete.
export function createDomainActions(deps: DomainDeps) {
  const now = deps.now ?? (() => new Date());
  const canonical = () => {
    if (!deps.canonicalHost || !deps.verify) throw new AppError('domains_not_configured');
    return deps.canonicalHost;
  };
  const find = async (principal: Principal, id: string) => {
    const found = await deps.domains.findById(principal.orgId, id);
    if (!found) throw new AppError('not_found', 'No such domain.');
    return found;
  };

  return {
    async list(principal: Principal) {
      const host = deps.canonicalHost ?? '';
      return (await deps.domains.list(principal.orgId)).map((d) => domainView(d, host));
    },

    async create(principal: Principal, input: string) {
      const host = canonical();
      const name = normaliseDomain(input, host);
      if (!name.ok)
        throw new AppError('validation_failed', 'The request is not valid.', {
          errors: [{ field: 'domain', message: name.reason }],
        });
      const created = await deps.domains.create(
        principal.orgId,
        name.domain,
        `relay-verify-${randomBytes(16).toString('hex')}`,
      );
      if (created === 'taken') throw new AppError('domain_taken');
      await recordAudit(deps.audit, principal, {
        action: 'domain.created',
        resourceType: 'domain',
        resourceId: created.id,
        metadata: { domain: created.domain },
      });
      return domainView(created, host);
    },

    async verify(principal: Principal, id: string) {
      const domain = await find(principal, id);
      const host = canonical();
      const check = await deps.verify!(domain.domain, domain.verificationToken);
      const updated =
        (await deps.domains.recordCheck(principal.orgId, id, check.ok ? null : summary(check), now())) ?? domain;
      await recordAudit(deps.audit, principal, {
        action: check.ok ? 'domain.verified' : 'domain.verification_failed',
        resourceType: 'domain',
        resourceId: id,
        metadata: {
          domain: domain.domain,
          ...(check.ok ? {} : { cname: check.cname.problem, txt: check.txt.problem }),
        },
      });
      if (!check.ok)
        throw new AppError('domain_verification_failed', summary(check), {
          checks: checkView(check),
          domain: domainView(updated, host),
        });
      return { ...domainView(updated, host), checks: checkView(check) };
    },

    async delete(principal: Principal, id: string) {
      const domain = await find(principal, id);
      if (!(await deps.domains.delete(principal.orgId, id))) throw new AppError('not_found', 'No such domain.');
      await recordAudit(deps.audit, principal, {
        action: 'domain.deleted',
        resourceType: 'domain',
        resourceId: id,
        metadata: { domain: domain.domain },
      });
    },
  };
}

export type DomainActions = ReturnType<typeof createDomainActions>;
