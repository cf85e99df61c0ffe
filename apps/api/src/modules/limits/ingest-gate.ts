import { AppError, type OrgId } from '@relay/core';
import type { LimitsOf } from './organization-limits';
import type { Admission, Quota } from './quota';
import type { IngestRateLimit, LimitHeaders } from './rate-limits';

export interface IngestGateDeps {
  limitsOf: LimitsOf;
  /** INGEST_RATE_LIMIT: webhooks per window per organization; 0 = off unless the organization has its own. */
  defaultRateLimit: number;
  rateLimit: IngestRateLimit;
  quota: Quota;
}

/** What the gate let through: the quota's count (given back if nothing is stored) and the answer's headers. */
export interface IngestPass {
  admission: Admission | undefined;
  headers: LimitHeaders;
}

/** Where ingest asks whether a webhook of an organization may be stored: the rate limit and the monthly quota. */
export type IngestGate = (orgId: OrgId) => Promise<IngestPass>;

const NONE: IngestPass = { admission: undefined, headers: {} };

// A refusal by the quota of a webhook the rate limit counted still carries the rate limit's headers.
const withHeaders = (err: unknown, headers: LimitHeaders): unknown =>
  err instanceof AppError && Object.keys(headers).length > 0
    ? new AppError(err.code, err.message, err.details, { ...headers, ...err.headers })
    : err;

// Runs before the body is read. An organization without a limit costs no Redis call (its limits are cached in
// memory); with both limits the two Redis scripts are sent together, so the wait is one round trip. A webhook the
// rate limit refuses gives its quota count back; one the quota refuses still counts against the rate limit (it
// was a request).
export function createIngestGate(deps: IngestGateDeps): IngestGate {
  return async (orgId) => {
    const limits = await deps.limitsOf(orgId);
    const rate = limits.ingestRateLimit ?? deps.defaultRateLimit;
    const quota = limits.monthlyEventLimit;
    if (rate === 0 && quota === null) return NONE;
    const [limited, counted] = await Promise.allSettled([
      rate > 0 ? deps.rateLimit(orgId, rate) : {},
      quota !== null ? deps.quota.admit(orgId, quota, limits.currentPeriodEnd) : undefined,
    ]);
    if (limited.status === 'rejected') {
      if (counted.status === 'fulfilled') counted.value?.release();
      throw limited.reason;
    }
    if (counted.status === 'rejected') throw withHeaders(counted.reason, limited.value);
    return { admission: counted.value, headers: limited.value };
  };
}
