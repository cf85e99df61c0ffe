import { AppError } from '@relay/core';
import { healthSchema, readySchema } from '@relay/contracts';
import { sendProblem } from '../../http/problem';
import { defineOperation } from '../../composition/define-operation';

const common = { tag: 'operations', access: 'public' } as const;

// Liveness and readiness probes: public, answered before any credential is looked at.
export const probeOperations = [
  defineOperation({
    ...common,
    method: 'get',
    path: '/health',
    summary: 'Liveness probe',
    responses: { 200: { description: 'The process answers.', schema: healthSchema } },
    handler: () => ({ status: 200, body: { status: 'ok' } }),
  }),
  defineOperation({
    ...common,
    method: 'get',
    path: '/ready',
    summary: 'Readiness probe (Postgres, Redis, start-up work done, not shutting down)',
    responses: {
      200: { description: 'Ready.', schema: readySchema },
      503: { description: 'Not ready (`service_unavailable`).' },
    },
    handler: async ({ services, res }) => {
      const { ready, reason, checks, replica } = await services.probes.readiness();
      const detail = replica ? { replica } : {};
      if (ready) return { status: 200, body: { status: 'ready', checks, ...detail } };
      // Answered here rather than thrown: a load balancer polls this, and a 503 is no error to log.
      sendProblem(res, new AppError('service_unavailable', reason ?? undefined, { checks, ...detail }));
      return undefined;
    },
  }),
];
