import { AppError } from '@relay/core';
import { z } from 'zod';
import { defineOperation } from '../../composition/define-operation';

// Declared as an operation so /metrics is documented and reserved (never a webhook source); the answer
// is Prometheus' text format, written by the handler. Public: METRICS_TOKEN, not a relay credential, guards it.
export const metricsOperations = [
  defineOperation({
    tag: 'operations',
    access: 'public',
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics of this api process',
    description:
      'Ingest, login and process metrics in the Prometheus text format (docs/operations.md#metrics). Open while ' +
      'METRICS_TOKEN is unset; with it, only for `Authorization: Bearer <METRICS_TOKEN>`.',
    responses: {
      200: { description: 'The metrics.', contentType: 'text/plain; version=0.0.4', schema: z.string() },
      401: { description: 'METRICS_TOKEN is set and the request does not carry it (`unauthenticated`).' },
    },
    handler: async ({ services, req, res }) => {
      const text = await services.metrics.scrape(req.get('authorization'));
      if (text === undefined) {
        res.set('www-authenticate', 'Bearer realm="metrics"');
        throw new AppError('unauthenticated', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
      }
      res.set('cache-control', 'no-store').type(services.metrics.contentType).send(text);
      return undefined;
    },
  }),
];
