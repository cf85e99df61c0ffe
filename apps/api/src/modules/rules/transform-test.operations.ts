import { transformTestResultSchema, transformTestSchema, uuidParam } from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

// A transform tried on one of the rule's stored webhooks (docs/transformations.md, "Trying a transform"). Admin,
// and `events:read` for keys: the answer shows what a stored payload contains.
export const transformTestOperations = [
  defineOperation({
    tag: 'rules',
    notFound: 'No such rule.',
    method: 'post',
    path: '/rules/:id/transform-test',
    access: { role: 'admin', scope: 'events:read' },
    summary: "Run a transform on one of the rule's stored webhooks, sending nothing",
    description:
      'Runs `transform` (absent: the saved transform of the rule, or of `destination_id`) on the stored webhook ' +
      '`event_id` in the same sandbox and limits as deliveries (TRANSFORM_TIMEOUT_MS, TRANSFORM_MEMORY_MB), and ' +
      'answers the request it returns (`ok: true`) or why it failed (`ok: false`, with `line` and `cause`), with ' +
      'the captured console output. A failing transform is an answer (200), not an error. The transform is given ' +
      'the webhook as the events API shows it: the body parsed as JSON, sensitive headers masked, path and query. ' +
      'Nothing is sent, saved or audited.',
    params: uuidParam,
    body: transformTestSchema,
    responses: {
      200: { description: 'The returned request, or the failure.', schema: transformTestResultSchema },
      404: { description: 'No such rule, event of the rule, or destination of the rule (`not_found`).' },
      503: { description: 'The sandbox itself failed, not the transform (`service_unavailable`); try again.' },
    },
    handler: async ({ services, principal, params, body }) => ({
      status: 200,
      body: await services.transformTest.test(principal, params.id, body),
    }),
  }),
];
