import { z } from 'zod';
import { timestamp } from './common.schemas';
import { organizationSchema } from './identity.schemas';

// Bounds of the per-organization overrides the platform API sets (issue 17): a positive whole number, or null
// for the install-wide setting.
export const RATE_LIMIT_MAX = 10_000_000;
export const RETENTION_DAYS_MAX = 3_650;

const override = (max: number, what: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(max)
    .nullable()
    .optional()
    .describe(`${what}; 1 to ${max}, null: the install-wide setting.`);

export const limitOverridesPatch = {
  ingest_rate_limit: override(
    RATE_LIMIT_MAX,
    'Webhooks accepted per RATE_LIMIT_WINDOW_SECONDS for the whole organization (instead of INGEST_RATE_LIMIT)',
  ),
  api_rate_limit: override(
    RATE_LIMIT_MAX,
    'API requests per RATE_LIMIT_WINDOW_SECONDS for each credential of the organization (instead of API_RATE_LIMIT)',
  ),
  retention_days: override(RETENTION_DAYS_MAX, 'Days events and attempts are kept (instead of RETENTION_DAYS)'),
};

export const limitOverridesSchema = {
  ingest_rate_limit: z.number().int().nullable(),
  api_rate_limit: z.number().int().nullable(),
  retention_days: z.number().int().nullable(),
};

export const usageSchema = z
  .object({
    events_this_period: z
      .number()
      .int()
      .describe('Webhooks accepted in the billing period (the quota counter while a monthly_event_limit is set).'),
    monthly_event_limit: z.number().int().nullable().describe('null: no quota.'),
    period_start: timestamp.describe('The period begins after this instant.'),
    period_end: timestamp.describe('…and ends at this one (included).'),
  })
  .describe(
    'The billing period: the calendar month before current_period_end while that lies ahead, else the calendar ' +
      'month in UTC.',
  );

export const organizationWithUsageSchema = organizationSchema.extend({ usage: usageSchema });
