import type { EventCutoffs, RetentionOrganization } from '@relay/db';
import type { WorkerConfig } from '../config';

/** Retention settings as the worker reads them (config.ts); 0 days means "off". */
export interface RetentionSettings {
  /** RETENTION_DAYS: days events are kept after their last change; 0: off (unless an organization overrides). */
  retentionDays: number;
  /** RETENTION_FAILED_MAX_DAYS: the hard maximum for failures nobody acknowledged. */
  failedMaxDays: number;
  /** AUDIT_RETENTION_DAYS: days audit entries are kept; 0: forever. */
  auditRetentionDays: number;
}

export function retentionSettings(config: WorkerConfig): RetentionSettings {
  return {
    retentionDays: config.RETENTION_DAYS,
    failedMaxDays: config.RETENTION_FAILED_MAX_DAYS,
    auditRetentionDays: config.AUDIT_RETENTION_DAYS,
  };
}

export interface OrganizationPlan {
  organization: RetentionOrganization;
  /** The days that apply: the organization's override, else RETENTION_DAYS. */
  days: number;
  cutoffs: EventCutoffs;
}

const DAY_MS = 86_400_000;
const daysBefore = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS);

/**
 * The organizations whose events retention deletes now, and from when. An organization's own
 * retention_days wins over RETENTION_DAYS, also when RETENTION_DAYS is off: an operator set it on
 * purpose. With neither, the organization keeps everything. Unacknowledged failures are kept for
 * RETENTION_FAILED_MAX_DAYS, and never less than the organization's retention.
 */
export function planEventRetention(
  organizations: readonly RetentionOrganization[],
  settings: RetentionSettings,
  now: Date,
): OrganizationPlan[] {
  return organizations.flatMap((organization) => {
    const days = organization.retentionDays ?? settings.retentionDays;
    if (!(days > 0)) return [];
    const cutoffs = {
      before: daysBefore(now, days),
      unacknowledgedBefore: daysBefore(now, Math.max(days, settings.failedMaxDays)),
    };
    return [{ organization, days, cutoffs }];
  });
}

/** Audit entries created before this are deleted; null: audit entries are kept forever. */
export function auditCutoff(settings: RetentionSettings, now: Date): Date | null {
  return settings.auditRetentionDays > 0 ? daysBefore(now, settings.auditRetentionDays) : null;
}
