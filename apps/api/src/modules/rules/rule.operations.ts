import { ruleCreateSchema, ruleSchema, ruleSecretRotateSchema, ruleUpdateSchema, uuidParam } from '@relay/contracts';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';

const read = { role: 'viewer', scope: 'rules:read' } as const;
const write = { role: 'admin', scope: 'rules:write' } as const;
const common = { tag: 'rules', notFound: 'No such rule.' } as const;

export const conflict = {
  409: { description: 'Another active rule serves this source (`active_provider_exists`).' },
};
export const rejected = {
  422: { description: 'The target URL is refused by the target policy (`target_url_rejected`, with `reason`).' },
};
// A rule write may be refused for its secrets too (docs/rules.md).
const ruleRejected = {
  422: {
    description:
      'The target URL is refused by the target policy (`target_url_rejected`, with `reason`), `verification` is on ' +
      'without a verification secret (`verification_secret_required`), or a secret is sent while ' +
      'SECRET_ENCRYPTION_KEYS is unset (`secrets_not_configured`).',
  },
};

// Rules decide where payloads go (`/rules`).
export const ruleOperations = [
  defineOperation({
    ...common,
    method: 'get',
    path: '/rules',
    access: read,
    summary: 'Rules of the organization',
    responses: { 200: { description: 'Rules.', schema: z.object({ rules: z.array(ruleSchema) }) } },
    handler: async ({ services, principal }) => ({
      status: 200,
      body: { rules: await services.rules.list(principal) },
    }),
  }),
  defineOperation({
    ...common,
    method: 'post',
    path: '/rules',
    idempotent: true,
    access: write,
    summary: 'Create a rule',
    body: ruleCreateSchema,
    responses: { 201: { description: 'Created.', schema: ruleSchema }, ...conflict, ...ruleRejected },
    handler: async ({ services, principal, body }) => ({
      status: 201,
      body: await services.rules.create(principal, body),
    }),
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: '/rules/:id',
    access: read,
    summary: 'One rule',
    params: uuidParam,
    responses: { 200: { description: 'The rule.', schema: ruleSchema } },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: await services.rules.get(principal, params.id),
    }),
  }),
  defineOperation({
    ...common,
    method: 'patch',
    path: '/rules/:id',
    access: write,
    summary: 'Change a rule (null clears description or signing secret)',
    params: uuidParam,
    body: ruleUpdateSchema,
    responses: { 200: { description: 'Updated.', schema: ruleSchema }, ...conflict, ...ruleRejected },
    handler: async ({ services, principal, params, body }) => ({
      status: 200,
      body: await services.rules.update(principal, params.id, body),
    }),
  }),
  defineOperation({
    ...common,
    method: 'post',
    path: '/rules/:id/secret/rotate',
    access: write,
    summary: 'Rotate the signing secret; the replaced one keeps signing until the window ends',
    params: uuidParam,
    body: ruleSecretRotateSchema,
    responses: {
      200: { description: 'Rotated.', schema: ruleSchema },
      422: { description: 'SECRET_ENCRYPTION_KEYS is not set (`secrets_not_configured`).' },
    },
    handler: async ({ services, principal, params, body }) => ({
      status: 200,
      body: await services.rules.rotateSecret(principal, params.id, body),
    }),
  }),
  defineOperation({
    ...common,
    method: 'delete',
    path: '/rules/:id',
    access: write,
    summary: 'Delete a rule and its hooks',
    params: uuidParam,
    responses: { 204: { description: 'Deleted.' } },
    handler: async ({ services, principal, params }) => {
      await services.rules.delete(principal, params.id);
      return { status: 204 };
    },
  }),
];
