import { domainCreateSchema, domainSchema, domainVerifiedSchema, uuidParam } from '@relay/contracts';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';

const manage = { role: 'admin', scope: 'organization:manage' } as const;
const common = { tag: 'domains', access: manage, notFound: 'No such domain.' } as const;

// Custom ingest domains decide which host feeds the organization: organization management.
export const domainOperations = [
  defineOperation({
    ...common,
    method: 'get',
    path: '/api/domains',
    summary: 'Custom ingest domains',
    responses: { 200: { description: 'Domains.', schema: z.object({ domains: z.array(domainSchema) }) } },
    handler: async ({ services, principal }) => ({
      status: 200,
      body: { domains: await services.domains.list(principal) },
    }),
  }),
  defineOperation({
    ...common,
    method: 'post',
    path: '/api/domains',
    idempotent: true,
    summary: 'Add a custom ingest domain (pending until verified)',
    body: domainCreateSchema,
    responses: {
      201: { description: 'Created, with the verification token and the records to add.', schema: domainSchema },
      409: { description: 'Registered already (`domain_taken`).' },
      422: { description: 'INGEST_CANONICAL_HOST is not set (`domains_not_configured`).' },
    },
    handler: async ({ services, principal, body }) => ({
      status: 201,
      body: await services.domains.create(principal, body.domain),
    }),
  }),
  defineOperation({
    ...common,
    method: 'post',
    path: '/api/domains/:id/verify',
    summary: 'Check the CNAME and TXT records; both valid → active',
    params: uuidParam,
    responses: {
      200: { description: 'Active.', schema: domainVerifiedSchema },
      422: {
        description:
          'A record is missing or wrong (`domain_verification_failed`, with `checks`); the domain stays pending.',
      },
    },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: await services.domains.verify(principal, params.id),
    }),
  }),
  defineOperation({
    ...common,
    method: 'delete',
    path: '/api/domains/:id',
    summary: 'Remove a domain (it stops receiving at once)',
    params: uuidParam,
    responses: { 204: { description: 'Deleted.' } },
    handler: async ({ services, principal, params }) => {
      await services.domains.delete(principal, params.id);
      return { status: 204 };
    },
  }),
];
