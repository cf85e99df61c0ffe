import {
  auditListQuery,
  auditPageSchema,
  hostedOrganizationSchema,
  organizationCreatedSchema,
  organizationCreateSchema,
  organizationDetailSchema,
  organizationListQuery,
  organizationPageSchema,
  platformOverviewSchema,
  subscriptionPatchSchema,
  uuidParam,
} from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

const common = { tag: 'platform', access: 'operator', notFound: 'No such organization.' } as const;

// The operator console API: platform operators' sessions only, across every organization.
export const platformOperations = [
  defineOperation({
    ...common,
    method: 'get',
    path: '/api/platform/overview',
    summary: 'Counts across every organization',
    responses: { 200: { description: 'Overview.', schema: platformOverviewSchema } },
    handler: async ({ services }) => ({ status: 200, body: await services.platform.overview() }),
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: '/api/platform/organizations',
    summary: 'Organizations, newest first',
    query: organizationListQuery,
    responses: { 200: { description: 'A page.', schema: organizationPageSchema } },
    handler: async ({ services, query }) => ({ status: 200, body: await services.platform.list(query) }),
  }),
  defineOperation({
    ...common,
    method: 'post',
    path: '/api/platform/organizations',
    idempotent: true,
    summary: 'Create an organization and its initial admin',
    body: organizationCreateSchema,
    responses: {
      201: { description: 'Created.', schema: organizationCreatedSchema },
      409: { description: 'Slug (`slug_taken`) or username (`username_taken`) in use.' },
    },
    handler: async ({ services, operator, body }) => ({
      status: 201,
      body: await services.platform.create(operator, body),
    }),
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: '/api/platform/audit',
    summary: 'Platform-level audit entries, filtered by action, actor, resource and time',
    description:
      'The entries of no organization (operators creating, changing, exporting and deleting organizations), ' +
      "newest first; the filters are those of `GET /api/audit`. An organization's entries: `resource_id=<its id>`.",
    query: auditListQuery,
    responses: { 200: { description: 'Newest first.', schema: auditPageSchema } },
    handler: async ({ services, query }) => ({ status: 200, body: await services.platform.auditPage(query) }),
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: '/api/platform/organizations/:id',
    summary: 'One organization',
    params: uuidParam,
    responses: { 200: { description: 'The organization.', schema: organizationDetailSchema } },
    handler: async ({ services, params }) => ({ status: 200, body: await services.platform.get(params.id) }),
  }),
  defineOperation({
    ...common,
    method: 'patch',
    path: '/api/platform/organizations/:id/subscription',
    summary: 'Change the subscription',
    params: uuidParam,
    body: subscriptionPatchSchema,
    responses: { 200: { description: 'The organization.', schema: hostedOrganizationSchema } },
    handler: async ({ services, operator, params, body }) => ({
      status: 200,
      body: await services.platform.updateSubscription(operator, params.id, body),
    }),
  }),
];
