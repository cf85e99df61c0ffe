import { AppError, maskedHeaders, type Principal } from '@relay/core';
import type { transformTestSchema } from '@relay/contracts';
import type { Repositories } from '@relay/db';
import type { TransformRunner } from '@relay/transform';
import type { z } from 'zod';
import { sandboxCall } from './transform-pacing';

export interface TransformTestServiceDeps {
  repositories: Pick<Repositories, 'rules' | 'destinations' | 'eventQueries'>;
  /** The api's own sandbox (TRANSFORM_* settings): the same engine and limits as the worker's. */
  runner: Pick<TransformRunner, 'run'>;
  /** Header names every reader sees masked (SENSITIVE_HEADERS): the transform sees them masked too. */
  sensitiveHeaders: readonly string[];
}

type TransformTest = z.output<typeof transformTestSchema>;

// The stored body as the transform gets it: ingest stores only JSON, but a row stored before that (or by hand) is
// given as its text rather than refused.
function bodyOf(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

// POST /rules/{id}/transform-test (docs/transformations.md, "Trying a transform"): a transform run on one of the
// rule's stored webhooks in the sandbox, nothing sent, stored or audited. The webhook is given as its caller reads it
// in the events API (sensitive headers masked), so a transform cannot print a credential the caller may not see. A
// transform that fails is an answer (ok: false), not an API error.
export function createTransformTestService(deps: TransformTestServiceDeps) {
  const { rules, destinations, eventQueries } = deps.repositories;
  return {
    async test(principal: Principal, ruleId: string, input: TransformTest) {
      const rule = await rules.findById(principal.orgId, ruleId);
      if (!rule) throw new AppError('not_found', 'No such rule.');
      let saved = rule.transform;
      if (input.destination_id !== undefined) {
        const destination = await destinations.findById(principal.orgId, ruleId, input.destination_id);
        if (!destination) throw new AppError('not_found', 'No such destination of this rule.');
        saved = destination.transform;
      }
      const [event] = await eventQueries.ruleRequests(principal.orgId, ruleId, { ids: [input.event_id] });
      if (!event) throw new AppError('not_found', 'No such event of this rule.');
      const code = input.transform ?? saved;
      if (code === null)
        throw new AppError('validation_failed', 'The request is not valid.', {
          errors: [{ field: 'transform', message: 'nothing is saved to try: give the code to try' }],
        });
      const request = {
        body: bodyOf(event.body),
        headers: maskedHeaders(event.headers, deps.sensitiveHeaders),
        path: event.path,
        query: event.query,
      };
      const context = {
        event_id: event.id,
        source: event.source,
        rule_id: ruleId,
        ...(input.destination_id !== undefined ? { destination_id: input.destination_id } : {}),
      };
      const result = await sandboxCall(() => deps.runner.run(code, request, context));
      if (!result.ok) return result;
      // The body's JSON text is the worker's (what it sends); the answer shows the request.
      const { bodyJson: _sent, ...answer } = result;
      return answer;
    },
  };
}
