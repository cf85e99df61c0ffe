import { randomBytes } from 'node:crypto';
import { AppError, type Principal } from '@relay/core';
import type { Repositories } from '@relay/db';
import { audited } from '../audit-entry';
import type { DomainVerifier } from './dns-verifier';
import { normaliseDomain } from './domain-name';
import { checkSummary, checkView, domainView } from './domain.views';

export interface DomainServiceDeps {
  repositories: Pick<Repositories, 'domains' | 'transaction'>;
  /** INGEST_CANONICAL_HOST; custom domains are off without it. */
  canonicalHost: string | undefined;
  verify: DomainVerifier | undefined;
  now?: () => Date;
}

// Custom ingest domains of an organization: create (normalised, pending, with the records to add),
// verify (both DNS records → active; otherwise still pending, saying which record is wrong), delete.
export function createDomainService(deps: DomainServiceDeps) {
  const { repositories: repos } = deps;
  const now = deps.now ?? (() => new Date());
  const configured = () => {
    if (!deps.canonicalHost || !deps.verify) throw new AppError('domains_not_configured');
    return { host: deps.canonicalHost, verify: deps.verify };
  };
  const find = async (principal: Principal, id: string) => {
    const found = await repos.domains.findById(principal.orgId, id);
    if (!found) throw new AppError('not_found', 'No such domain.');
    return found;
  };

  return {
    async list(principal: Principal) {
      const host = deps.canonicalHost ?? '';
      return (await repos.domains.list(principal.orgId)).map((d) => domainView(d, host));
    },

    async create(principal: Principal, input: string) {
      const { host } = configured();
      const name = normaliseDomain(input, host);
      if (!name.ok) {
        throw new AppError('validation_failed', 'The request is not valid.', {
          errors: [{ field: 'domain', message: name.reason }],
        });
      }
      const token = `relay-verify-${randomBytes(16).toString('hex')}`;
      const created = await repos.transaction(async (tx) => {
        const domain = await tx.domains.create(principal.orgId, name.domain, token);
        // Thrown inside: the transaction rolls back (a unique violation has aborted it anyway).
        if (domain === 'taken') throw new AppError('domain_taken');
        const fact = { action: 'domain.created', resourceType: 'domain', resourceId: domain.id };
        await audited(tx, principal, { ...fact, metadata: { domain: domain.domain } });
        return domain;
      });
      return domainView(created, host);
    },

    async verify(principal: Principal, id: string) {
      const domain = await find(principal, id);
      const { host, verify } = configured();
      const check = await verify(domain.domain, domain.verificationToken);
      const updated = await repos.transaction(async (tx) => {
        const row = await tx.domains.recordCheck(principal.orgId, id, check.ok ? null : checkSummary(check), now());
        const problems = check.ok ? {} : { cname: check.cname.problem, txt: check.txt.problem };
        await audited(tx, principal, {
          action: check.ok ? 'domain.verified' : 'domain.verification_failed',
          resourceType: 'domain',
          resourceId: id,
          metadata: { domain: domain.domain, ...problems },
        });
        return row ?? domain;
      });
      if (!check.ok) {
        throw new AppError('domain_verification_failed', checkSummary(check), {
          checks: checkView(check),
          domain: domainView(updated, host),
        });
      }
      return { ...domainView(updated, host), checks: checkView(check) };
    },

    async delete(principal: Principal, id: string): Promise<void> {
      const domain = await find(principal, id);
      await repos.transaction(async (tx) => {
        if (!(await tx.domains.delete(principal.orgId, id))) throw new AppError('not_found', 'No such domain.');
        const fact = { action: 'domain.deleted', resourceType: 'domain', resourceId: id };
        await audited(tx, principal, { ...fact, metadata: { domain: domain.domain } });
      });
    },
  };
}
