import type { OrgId } from '@relay/core';
import type { Request, Response } from 'express';
import type { LimitsOf } from './organization-limits';
import type { Admission, Quota } from './quota';
import type { IngestRateLimit } from './rate-limits';

export interface IngestGateDeps {
  limitsOf: LimitsOf;
  /** INGEST_RATE_LIMIT: webhooks per window per organization; 0 = off unless the organization has its own. */
  defaultRateLimit: number;
  rateLimit: IngestRateLimit;
  quota: Quota;
}

/** Where ingest asks whether a webhook of an organization may be stored: the rate limit and the monthly quota. */
export type IngestGate = (orgId: OrgId, req: Request, res: Response) => Promise<Admission | undefined>;

// Runs before the body is read. An organization without a limit costs no Redis call (its limits are cached in
// memory); with both limits the two Redis scripts are sent together, so the wait is one round trip. A webhook the
// rate limit refuses gives its quota count back; one the quota refuses still counts against the rate limit (it
// was a request).
export function createIngestGate(deps: IngestGateDeps): IngestGate {
  return async (orgId, req, res) => {
    const limits = await deps.limitsOf(orgId);
    const rate = limits.ingestRateLimit ?? deps.defaultRateLimit;
    const quota = limits.monthlyEventLimit;
    if (rate === 0 && quota === null) return undefined;
    const [limited, counted] = await Promise.allSettled([
      rate > 0 ? deps.rateLimit(orgId, rate, req, res) : undefined,
      quota !== null ? deps.quota.admit(orgId, quota, limits.currentPeriodEnd) : undefined,
    ]);
    if (limited.status === 'rejected') {
      if (counted.status === 'fulfilled') counted.value?.release();
      throw limited.reason;
    }
    if (counted.status === 'rejected') throw counted.reason;
    return counted.value;
  };
}
