import { operatorCreateSchema, operatorSchema, passwordChangeSchema, uuidParam } from '@relay/contracts';
import { z } from 'zod';
import { retryAfter } from '../../auth/too-many-attempts';
import { renewSession } from '../account/renew-session';
import { defineOperation } from '../../composition/define-operation';

const common = { tag: 'platform', access: 'operator', notFound: 'No such operator.' } as const;

// Operators manage operators: their own password, and who else is one (never none).
export const operatorOperations = [
  defineOperation({
    ...common,
    method: 'post',
    path: '/api/platform/password',
    summary: "Change the operator's password; their other sessions end",
    body: passwordChangeSchema,
    responses: {
      204: { description: 'Changed; this session continues with a new cookie.' },
      403: { description: 'The current password is wrong (`wrong_password`).' },
      429: { description: 'Too many wrong passwords (Retry-After).' },
    },
    handler: async ({ services, operator, req, res, body }) => {
      const cut = await services.operators.changePassword(operator, body, req.ip).catch((err: unknown) => {
        retryAfter(res, err);
        throw err;
      });
      await renewSession(req, cut);
      return { status: 204 };
    },
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: '/api/platform/operators',
    summary: 'Platform operators',
    responses: { 200: { description: 'Operators.', schema: z.object({ operators: z.array(operatorSchema) }) } },
    handler: async ({ services }) => ({ status: 200, body: { operators: await services.operators.list() } }),
  }),
  defineOperation({
    ...common,
    method: 'post',
    path: '/api/platform/operators',
    summary: 'Add a platform operator',
    body: operatorCreateSchema,
    responses: {
      201: { description: 'Created.', schema: operatorSchema },
      409: { description: 'Username in use by an operator or a user (`username_taken`).' },
    },
    handler: async ({ services, operator, body }) => ({
      status: 201,
      body: await services.operators.create(operator, body),
    }),
  }),
  defineOperation({
    ...common,
    method: 'delete',
    path: '/api/platform/operators/:id',
    summary: 'Remove a platform operator (never the last)',
    params: uuidParam,
    responses: {
      204: { description: 'Removed; their sessions end.' },
      404: { description: 'No such operator.' },
      409: { description: 'The last operator (`last_operator`).' },
    },
    handler: async ({ services, operator, params }) => {
      await services.operators.remove(operator, params.id);
      return { status: 204 };
    },
  }),
];
