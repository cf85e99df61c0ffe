import type { RetentionRepository } from '@relay/db';
import type { PartitionRetirer, PlannedDrop } from './partition-retention';
import { auditCutoff, planEventRetention, type RetentionSettings } from './retention-plan';

export interface DryRunRow {
  /** The organization's slug; `(platform)` for platform entries, `(deleted organizations)` for the rest. */
  organization: string;
  /** Days its events are kept; null: kept forever (no setting, no override). */
  days: number | null;
  events: number;
  attempts: number;
  auditEntries: number;
}

export interface DryRunReport {
  at: Date;
  rows: DryRunRow[];
  total: { events: number; attempts: number; auditEntries: number };
  /**
   * The history partitions past every organization's cutoff (docs/partitioning.md): dropped whole when none of their
   * events is kept, else left to the row-by-row deletes. Their due events are counted in `rows` as well.
   */
  partitions: PlannedDrop[];
}

/**
 * What a retention run at `at` would delete, per organization, without deleting anything. A run is
 * bounded by RETENTION_MAX_RUN_SECONDS, so a large backlog may take several scheduled runs.
 */
export async function retentionDryRun(
  repository: RetentionRepository,
  settings: RetentionSettings,
  at: Date,
  partitions?: Pick<PartitionRetirer, 'plan'>,
): Promise<DryRunReport> {
  const organizations = await repository.listOrganizations();
  const planned = planEventRetention(organizations, settings, at);
  const plans = new Map(planned.map((p) => [p.organization.id, p]));
  const auditBefore = auditCutoff(settings, at);
  const audit = auditBefore ? await repository.countDueAudit(auditBefore) : new Map<string | null, number>();
  const rows: DryRunRow[] = [];
  for (const organization of organizations) {
    const plan = plans.get(organization.id);
    const due = plan ? await repository.countDueEvents(organization.id, plan.cutoffs) : { events: 0, attempts: 0 };
    rows.push({
      organization: organization.slug,
      days: plan?.days ?? null,
      ...due,
      auditEntries: audit.get(organization.id) ?? 0,
    });
    audit.delete(organization.id);
  }
  const platform = audit.get(null) ?? 0;
  audit.delete(null);
  const orphaned = [...audit.values()].reduce((sum, n) => sum + n, 0);
  if (platform > 0)
    rows.push({ organization: '(platform)', days: null, events: 0, attempts: 0, auditEntries: platform });
  if (orphaned > 0)
    rows.push({ organization: '(deleted organizations)', days: null, events: 0, attempts: 0, auditEntries: orphaned });
  const total = rows.reduce(
    (sum, r) => ({
      events: sum.events + r.events,
      attempts: sum.attempts + r.attempts,
      auditEntries: sum.auditEntries + r.auditEntries,
    }),
    { events: 0, attempts: 0, auditEntries: 0 },
  );
  return { at, rows, total, partitions: partitions ? await partitions.plan(organizations, planned) : [] };
}

const ACTIONS: Record<PlannedDrop['action'], (kept: number) => string> = {
  drop: () => 'would be dropped whole',
  stays: (kept) => `would stay (${kept} kept event${kept === 1 ? '' : 's'}); its due rows would be deleted one by one`,
};
// The first partition (from MINVALUE) starts at the epoch: it holds everything before its end.
const span = (p: PlannedDrop) =>
  p.from.getTime() === 0 ? `before ${p.to.toISOString()}` : `${p.from.toISOString()} to ${p.to.toISOString()}`;

/** The report as a text table for the terminal. */
export function formatDryRun(report: DryRunReport, settings: RetentionSettings): string {
  const header = ['organization', 'retention', 'events', 'attempts', 'audit_entries'];
  const lines = [
    ...report.rows.map((r) => [
      r.organization,
      r.days === null ? (r.organization.startsWith('(') ? '-' : 'off') : `${r.days}d`,
      String(r.events),
      String(r.attempts),
      String(r.auditEntries),
    ]),
    ['total', '', String(report.total.events), String(report.total.attempts), String(report.total.auditEntries)],
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const audit = settings.auditRetentionDays > 0 ? `${settings.auditRetentionDays}d` : 'off (kept forever)';
  return [
    `retention dry run at ${report.at.toISOString()}: nothing is deleted`,
    `RETENTION_DAYS=${settings.retentionDays || 'off'} RETENTION_FAILED_MAX_DAYS=${settings.failedMaxDays} ` +
      `AUDIT_RETENTION_DAYS=${audit}`,
    format(header),
    ...lines.map(format),
    ...(report.partitions.length === 0
      ? []
      : [
          'history partitions past every cutoff:',
          ...report.partitions.map((p) => `  ${p.name} (${span(p)}): ${ACTIONS[p.action](p.kept)}`),
        ]),
  ].join('\n');
}
