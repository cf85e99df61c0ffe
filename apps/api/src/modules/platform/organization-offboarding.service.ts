import { AppError, asOrgId, DEFAULT_ORGANIZATION_ID, type OrgId } from '@relay/core';
import type { ExportCursor, OperatorRecord, ReadRepositories, Repositories } from '@relay/db';
import { exportLineView } from './organization-offboarding.views';
import { auditedByOperator, byOperator, noSuchOrganization } from './operator-audit';

export interface OffboardingServiceDeps {
  repositories: Pick<Repositories, 'audit' | 'offboarding' | 'organizations'>;
  /** The export's pages (a read replica's, when one is set). */
  reads: Pick<ReadRepositories, 'exports'>;
  /** Header names the export masks (SENSITIVE_HEADERS), as the events API does. */
  sensitiveHeaders: readonly string[];
  /** Events per export query (one page is all the export holds in memory). */
  exportPageSize?: number;
  /** Events (and audit entries) per delete statement: each is its own short transaction. */
  deleteBatchSize?: number;
}

/** Runs `batch` until it removes nothing; the total removed. */
async function drain(batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let removed = await batch(); removed > 0; removed = await batch()) total += removed;
  return total;
}

// A platform operator's offboarding of one organization: its events as NDJSON, and its deletion.
export function createOffboardingService(deps: OffboardingServiceDeps) {
  const r = deps.repositories;
  const pageSize = deps.exportPageSize ?? 500;
  const batchSize = deps.deleteBatchSize ?? 1_000;

  async function* exportLines(orgId: OrgId): AsyncGenerator<string> {
    let after: ExportCursor | null = null;
    for (;;) {
      const page = await deps.reads.exports.exportPage(orgId, after, pageSize);
      for (const event of page) yield `${JSON.stringify(exportLineView(event, deps.sensitiveHeaders))}\n`;
      if (page.length < pageSize) return;
      const last = page[page.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }

  return {
    /**
     * Every event of the organization, oldest first, one JSON line each, read a page at a time as the
     * caller consumes them. The export is audited (platform entry) before its first line.
     */
    async exportEvents(operator: OperatorRecord, id: string): Promise<AsyncIterable<string>> {
      const orgId = asOrgId(id);
      const organization = await r.organizations.findById(orgId);
      if (!organization) throw noSuchOrganization();
      await auditedByOperator(r, operator, {
        action: 'organization.exported',
        resourceType: 'organization',
        resourceId: orgId,
        metadata: { slug: organization.slug },
      });
      return exportLines(orgId);
    },

    /**
     * Deletes the organization and everything of it, synchronously and in bounded steps: its ingest is
     * stopped first (canceled), then events go 1,000 at a time with their attempts and search rows,
     * then its own audit entries, then rules, users, credentials, domains and the organization row in
     * one last transaction with the platform audit entry. A deletion cut short (a timeout, a restart)
     * is finished by calling it again. Platform audit entries belong to no organization and stay.
     */
    async deleteOrganization(operator: OperatorRecord, id: string): Promise<void> {
      const orgId = asOrgId(id);
      const organization = await r.organizations.findById(orgId);
      if (!organization) throw noSuchOrganization();
      if (orgId === DEFAULT_ORGANIZATION_ID) throw new AppError('organization_is_default');
      if ((await r.offboarding.activeDomainCount(orgId)) > 0) throw new AppError('organization_has_domains');
      const fact = { resourceType: 'organization', resourceId: orgId };
      const metadata = { slug: organization.slug, name: organization.name };
      const begun = await r.offboarding.beginDeletion(
        orgId,
        byOperator(operator, { ...fact, action: 'organization.deletion_started', metadata }),
      );
      if (!begun) throw noSuchOrganization();
      const events = await drain(() => r.offboarding.deleteEventBatch(orgId, batchSize));
      const auditEntries = await drain(() => r.offboarding.deleteAuditBatch(orgId, batchSize));
      const rest = await r.offboarding.finishDeletion(orgId, (deleted) =>
        byOperator(operator, {
          ...fact,
          action: 'organization.deleted',
          metadata: {
            ...metadata,
            events,
            audit_entries: auditEntries,
            rules: deleted.rules,
            users: deleted.users,
            api_keys: deleted.apiKeys,
            domains: deleted.domains,
          },
        }),
      );
      if (rest === 'has_domains') throw new AppError('organization_has_domains');
      if (rest === null) throw noSuchOrganization();
    },
  };
}
