import { z } from 'zod';
import { timestamp, uuidParam } from '../openapi/common.schemas';
import { operations } from '../openapi/operation';

export const domainCreateSchema = z
  .object({ domain: z.string().min(1).max(253).describe('e.g. hooks.example.com; IDN names are stored as punycode.') })
  .strict();

const record = z.object({
  ok: z.boolean(),
  name: z.string(),
  expected: z.string(),
  found: z.array(z.string()),
  problem: z.string().nullable(),
});
const domain = z.object({
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

export const domainOperations = operations([
  {
    method: 'get',
    path: '/api/domains',
    tag: 'domains',
    access: 'GET /api/domains',
    summary: 'Custom ingest domains',
    responses: { 200: { description: 'Domains.', schema: z.object({ domains: z.array(domain) }) } },
  },
  {
    method: 'post',
    path: '/api/domains',
    tag: 'domains',
    access: 'POST /api/domains',
    summary: 'Add a custom ingest domain (pending until verified)',
    body: domainCreateSchema,
    responses: {
      201: { description: 'Created, with the verification token and the records to add.', schema: domain },
      409: { description: 'Registered already (`domain_taken`).' },
      422: { description: 'INGEST_CANONICAL_HOST is not set (`domains_not_configured`).' },
    },
  },
  {
    method: 'post',
    path: '/api/domains/:id/verify',
    tag: 'domains',
    access: 'POST /api/domains/:id/verify',
    summary: 'Check the CNAME and TXT records; both valid → active',
    params: uuidParam,
    responses: {
      200: { description: 'Active.', schema: domain.extend({ checks: z.object({ cname: record, txt: record }) }) },
      422: {
        description:
          'A record is missing or wrong (`domain_verification_failed`, with `checks`); the domain stays pending.',
      },
    },
  },
  {
    method: 'delete',
    path: '/api/domains/:id',
    tag: 'domains',
    access: 'DELETE /api/domains/:id',
    summary: 'Remove a domain (it stops receiving at once)',
    params: uuidParam,
    responses: { 204: { description: 'Deleted.' } },
  },
]);
