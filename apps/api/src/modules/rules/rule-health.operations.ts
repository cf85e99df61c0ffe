import { ruleResumedSchema, uuidParam } from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

// Endpoint health (docs/rules.md): the worker marks a rule unhealthy; an admin resumes it here.
export const ruleHealthOperations = [
  defineOperation({
    tag: 'rules',
    notFound: 'No such rule.',
    method: 'post',
    path: '/rules/:id/resume',
    access: { role: 'admin', scope: 'rules:write' },
    summary: 'Mark a rule healthy again and queue its paused events, each with a fresh run of attempts',
    description:
      'Clears the health state (reason, since, the failing run) and moves every `paused` event of the rule back ' +
      "to `queued`, due now, with a full set of attempts, sent to the rule's current `target_url` (a target " +
      'fixed by PATCH before the resume applies to them). Allowed on a healthy rule too (it releases any ' +
      'paused events). Audited as `rule.resumed` with the number of events.',
    params: uuidParam,
    responses: { 200: { description: 'Resumed.', schema: ruleResumedSchema } },
    handler: async ({ services, principal, params }) => ({
      status: 200,
      body: await services.ruleHealth.resume(principal, params.id),
    }),
  }),
];
