import { z } from 'zod';
import { timestamp } from './common.schemas';

export const domainCreateSchema = z
  .object({ domain: z.string().min(1).max(253).describe('e.g. hooks.example.com; IDN names are stored as punycode.') })
  .strict();

export const domainRecordCheckSchema = z.object({
  ok: z.boolean(),
  name: z.string(),
  expected: z.string(),
  found: z.array(z.string()),
  problem: z.string().nullable(),
});
export const domainSchema = z.object({
  id: z.uuid(),
  domain: z.string(),
  status: z.enum(['pending', 'active']),
  verification_token: z.string(),
  records: z
    .array(z.object({ type: z.enum(['CNAME', 'TXT']), name: z.string(), value: z.string() }))
    .describe('The DNS records to add.'),
  created_at: timestamp,
  verified_at: timestamp.nullable(),
  last_checked_at: timestamp.nullable(),
  last_check_error: z.string().nullable(),
});

export const domainVerifiedSchema = domainSchema.extend({
  checks: z.object({ cname: domainRecordCheckSchema, txt: domainRecordCheckSchema }),
});
