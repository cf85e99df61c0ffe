import type { OrgId } from '@relay/core';
import { parseWorkerConfig } from '../config';
import { auditCutoff, planEventRetention, retentionSettings } from './retention-plan';

const NOW = new Date('2027-01-31T00:00:00Z');
const org = (slug: string, retentionDays: number | null) => ({
  id: `00000000-0000-7000-8000-${slug.padStart(12, '0')}` as OrgId,
  slug,
  retentionDays,
});

describe('retention settings and plan', () => {
  it('is off by default: no organization is planned and audit entries are kept', () => {
    const settings = retentionSettings(parseWorkerConfig({}));
    expect(settings).toEqual({ retentionDays: 0, failedMaxDays: 90, auditRetentionDays: 0 });
    expect(planEventRetention([org('1', null)], settings, NOW)).toEqual([]);
    expect(auditCutoff(settings, NOW)).toBeNull();
    expect(parseWorkerConfig({}).RETENTION_SCHEDULE).toBe('17 * * * *');
  });

  it('refuses a schedule that is not a cron pattern', () => {
    expect(() => parseWorkerConfig({ RETENTION_SCHEDULE: 'hourly' })).toThrow(/RETENTION_SCHEDULE/);
    expect(parseWorkerConfig({ RETENTION_SCHEDULE: '*/5 * * * * *' }).RETENTION_SCHEDULE).toBe('*/5 * * * * *');
  });

  it("uses an organization's own days over the setting, and keeps unacknowledged failures at least as long", () => {
    const settings = { retentionDays: 30, failedMaxDays: 90, auditRetentionDays: 365 };
    const plans = planEventRetention([org('1', null), org('2', 7), org('3', 120)], settings, NOW);
    expect(plans.map((p) => [p.organization.slug, p.days, p.cutoffs])).toEqual([
      ['1', 30, { before: new Date('2027-01-01T00:00:00Z'), unacknowledgedBefore: new Date('2026-11-02T00:00:00Z') }],
      ['2', 7, { before: new Date('2027-01-24T00:00:00Z'), unacknowledgedBefore: new Date('2026-11-02T00:00:00Z') }],
      ['3', 120, { before: new Date('2026-10-03T00:00:00Z'), unacknowledgedBefore: new Date('2026-10-03T00:00:00Z') }],
    ]);
    expect(auditCutoff(settings, NOW)).toEqual(new Date('2026-01-31T00:00:00Z'));
  });
});
