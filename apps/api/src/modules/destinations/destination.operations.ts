import {
  destinationCreateSchema,
  destinationParams,
  destinationResumedSchema,
  destinationSchema,
  destinationUpdateSchema,
  uuidParam,
} from '@relay/contracts';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';

const read = { role: 'viewer', scope: 'rules:read' } as const;
const write = { role: 'admin', scope: 'rules:write' } as const;
const refused = {
  409: { description: 'The name is taken in the rule (`destination_name_taken`), or the rule has 20 destinations.' },
  422: {
    description:
      'The target URL is refused by the target policy (`target_url_rejected`, with `reason`), or a signing secret ' +
      'is sent while SECRET_ENCRYPTION_KEYS is unset (`secrets_not_configured`).',
  },
};

// `/rules/{id}/destinations`: routing's further targets of one rule (docs/routing.md, "Destinations").
export const destinationOperations = [
  defineOperation({
    tag: 'rules',
    method: 'get',
    path: '/rules/:id/destinations',
    access: read,
    notFound: 'No such rule.',
    summary: "A rule's destinations",
    params: uuidParam,
    responses: {
      200: {
        description: 'Destinations, oldest first.',
        schema: z.object({ destinations: z.array(destinationSchema) }),
      },
    },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: { destinations: await services.destinations.list(principal, params.id) },
    }),
  }),
  defineOperation({
    tag: 'rules',
    method: 'post',
    path: '/rules/:id/destinations',
    idempotent: true,
    access: write,
    notFound: 'No such rule.',
    summary: 'Add a destination to a rule',
    description:
      'Every webhook stored for the rule from now on gets a delivery to this destination when it is active and its ' +
      'filter matches, with its own attempts, retries, status and health. At most 20 per rule ' +
      '(409 `destination_limit_reached`). Audited as `destination.created`.',
    params: uuidParam,
    body: destinationCreateSchema,
    responses: { 201: { description: 'Created.', schema: destinationSchema }, ...refused },
    handler: async ({ services, principal, params, body }) => ({
      status: 201,
      body: await services.destinations.create(principal, params.id, body),
    }),
  }),
  defineOperation({
    tag: 'rules',
    method: 'get',
    path: '/rules/:id/destinations/:destinationId',
    access: read,
    notFound: 'No such destination.',
    summary: 'One destination of a rule',
    params: destinationParams,
    responses: { 200: { description: 'The destination.', schema: destinationSchema } },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: await services.destinations.get(principal, params.id, params.destinationId),
    }),
  }),
  defineOperation({
    tag: 'rules',
    method: 'patch',
    path: '/rules/:id/destinations/:destinationId',
    access: write,
    notFound: 'No such destination.',
    summary: 'Change a destination',
    description: 'null turns an option off (filter, signing secret, policy, span). Audited as `destination.updated`.',
    params: destinationParams,
    body: destinationUpdateSchema,
    responses: { 200: { description: 'Updated.', schema: destinationSchema }, ...refused },
    handler: async ({ services, principal, params, body }) => ({
      status: 200,
      body: await services.destinations.update(principal, params.id, params.destinationId, body),
    }),
  }),
  defineOperation({
    tag: 'rules',
    method: 'delete',
    path: '/rules/:id/destinations/:destinationId',
    access: write,
    notFound: 'No such destination.',
    summary: 'Delete a destination with its deliveries',
    params: destinationParams,
    responses: { 204: { description: 'Deleted.' } },
    handler: async ({ services, principal, params }) => {
      await services.destinations.delete(principal, params.id, params.destinationId);
      return { status: 204 };
    },
  }),
  defineOperation({
    tag: 'rules',
    method: 'post',
    path: '/rules/:id/destinations/:destinationId/resume',
    access: write,
    notFound: 'No such destination.',
    summary: 'Mark a destination healthy again and queue its paused deliveries',
    description:
      "Clears the destination's health state (reason, since, the failing run) and moves each of its `paused` " +
      'deliveries back to `queued`, due now. Allowed on a healthy destination too. Audited as ' +
      '`destination.resumed` with the number of deliveries.',
    params: destinationParams,
    responses: { 200: { description: 'Resumed.', schema: destinationResumedSchema } },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: await services.destinations.resume(principal, params.id, params.destinationId),
    }),
  }),
];
