import { bootstrapSchema, operatorBootstrappedSchema } from '@relay/contracts';
import express from 'express';
import { retryAfter } from '../../auth/too-many-attempts';
import { defineOperation } from '../../composition/define-operation';

// Public: it carries PLATFORM_ADMIN_TOKEN, not a relay credential, so app.ts mounts it before
// credentials are resolved, with a JSON parser of its own that takes only a small body.
export const bootstrapOperations = [
  defineOperation({
    method: 'post',
    path: '/api/platform/bootstrap/operator',
    idempotent: { secretField: 'password' },
    tag: 'platform',
    access: 'public',
    summary: 'Create the first platform operator (Authorization: Bearer <PLATFORM_ADMIN_TOKEN>)',
    description:
      'Works only while no operator exists. Answers a generated password, shown once, with which the operator ' +
      'signs in through `POST /api/auth/login`. Disabled (404) while PLATFORM_ADMIN_TOKEN is unset.',
    // strict: false so that `null` is a validation error like any other wrong shape (as in app.ts).
    middleware: [express.json({ limit: '4kb', strict: false })],
    body: bootstrapSchema,
    responses: {
      201: { description: 'Created.', schema: operatorBootstrappedSchema },
      401: { description: 'Missing or wrong token (`unauthenticated`).' },
      429: { description: 'Too many wrong tokens from this IP (`too_many_attempts`, Retry-After).' },
      404: { description: 'PLATFORM_ADMIN_TOKEN is not set (`not_found`).' },
      409: {
        description: "An operator exists already (`operator_exists`), or the username is a user's (`username_taken`).",
      },
    },
    handler: async ({ services, req, res, body }) => {
      const header = req.get('authorization');
      const bearer = header?.toLowerCase().startsWith('bearer ') ? header.slice(7).trim() : undefined;
      try {
        const created = await services.operatorBootstrap.bootstrapOperator({
          bearer,
          username: body.username,
          ip: req.ip,
        });
        return { status: 201, body: created };
      } catch (err) {
        retryAfter(res, err);
        throw err;
      }
    },
  }),
];
