import { hookCreateSchema, hookParams, hookSchema, hookUpdateSchema, uuidParam } from '@relay/contracts';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';
import { rejected } from './rule.operations';

const read = { role: 'viewer', scope: 'rules:read' } as const;
const write = { role: 'admin', scope: 'rules:write' } as const;

// `/rules/{id}/hooks`: follow-up deliveries attached to one rule.
export const hookOperations = [
  defineOperation({
    tag: 'rules',
    method: 'get',
    path: '/rules/:id/hooks',
    access: read,
    notFound: 'No such rule.',
    summary: "A rule's hooks",
    params: uuidParam,
    responses: { 200: { description: 'Hooks.', schema: z.object({ hooks: z.array(hookSchema) }) } },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: { hooks: await services.hooks.list(principal, params.id) },
    }),
  }),
  defineOperation({
    tag: 'rules',
    method: 'post',
    path: '/rules/:id/hooks',
    idempotent: true,
    access: write,
    notFound: 'No such rule.',
    summary: 'Attach a hook to a rule',
    params: uuidParam,
    body: hookCreateSchema,
    responses: { 201: { description: 'Created.', schema: hookSchema }, ...rejected },
    handler: async ({ services, principal, params, body }) => ({
      status: 201,
      body: await services.hooks.create(principal, params.id, body),
    }),
  }),
  defineOperation({
    tag: 'rules',
    method: 'patch',
    path: '/rules/:id/hooks/:hookId',
    access: write,
    notFound: 'No such hook.',
    summary: 'Change a hook (not its trigger)',
    params: hookParams,
    body: hookUpdateSchema,
    responses: { 200: { description: 'Updated.', schema: hookSchema }, ...rejected },
    handler: async ({ services, principal, params, body }) => ({
      status: 200,
      body: await services.hooks.update(principal, params.id, params.hookId, body),
    }),
  }),
  defineOperation({
    tag: 'rules',
    method: 'delete',
    path: '/rules/:id/hooks/:hookId',
    access: write,
    notFound: 'No such hook.',
    summary: 'Delete a hook',
    params: hookParams,
    responses: { 204: { description: 'Deleted.' } },
    handler: async ({ services, principal, params }) => {
      await services.hooks.delete(principal, params.id, params.hookId);
      return { status: 204 };
    },
  }),
];
