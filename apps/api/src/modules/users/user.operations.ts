import { newUserSchema, organizationWithUsageSchema, roleChangeSchema, userSchema, uuidParam } from '@relay/contracts';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';

const manage = { role: 'admin', scope: 'organization:manage' } as const;
const common = { tag: 'organization', access: manage, notFound: 'No such user.' } as const;

export const userOperations = [
  defineOperation({
    ...common,
    method: 'get',
    path: '/api/users',
    summary: 'Users of the organization',
    responses: { 200: { description: 'Users.', schema: z.object({ users: z.array(userSchema) }) } },
    handler: async ({ services, principal }) => ({
      status: 200,
      body: { users: await services.users.list(principal) },
    }),
  }),
  defineOperation({
    ...common,
    method: 'post',
    path: '/api/users',
    idempotent: true,
    summary: 'Add a user',
    body: newUserSchema,
    responses: {
      201: { description: 'Created.', schema: userSchema },
      409: { description: 'Username taken (`username_taken`).' },
    },
    handler: async ({ services, principal, body }) => ({
      status: 201,
      body: await services.users.create(principal, body),
    }),
  }),
  defineOperation({
    ...common,
    method: 'patch',
    path: '/api/users/:id/role',
    summary: "Change a user's role",
    params: uuidParam,
    body: roleChangeSchema,
    responses: {
      200: { description: 'Updated.', schema: userSchema },
      409: {
        description:
          'The last admin cannot be demoted (`last_admin`), or the role follows the identity provider ' +
          '(`role_managed_by_idp`).',
      },
    },
    handler: async ({ services, principal, params, body }) => ({
      status: 200,
      body: await services.users.changeRole(principal, params.id, body.role),
    }),
  }),
  defineOperation({
    method: 'get',
    path: '/api/organization',
    tag: 'organization',
    access: { role: 'viewer', scope: 'events:read' },
    summary: "The caller's organization, with its usage of the billing period",
    responses: { 200: { description: 'The organization.', schema: organizationWithUsageSchema } },
    handler: async ({ services, principal }) => ({
      status: 200,
      body: await services.users.organization(principal),
    }),
  }),
];
