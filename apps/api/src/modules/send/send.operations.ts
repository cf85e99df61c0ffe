import { sendSchema, sentSchema } from '@relay/contracts';
import { defineOperation } from '../../composition/define-operation';

export const sendOperations = [
  defineOperation({
    method: 'post',
    path: '/api/send',
    idempotent: true,
    tag: 'events',
    access: { role: 'admin', scope: 'webhooks:send' },
    summary: 'Send a webhook through the relay (rule mode or manual mode)',
    description:
      "Rule mode: `{provider_id, body}` uses the rule's source and target. " +
      "Manual mode: `{source, target_url, body}`; an empty `target_url` uses the organization's default target, " +
      'else DEFAULT_TARGET_URL. Both modes at once is a 400.',
    body: sendSchema,
    responses: {
      202: { description: 'Stored and queued; it is delivered like an ingested webhook.', schema: sentSchema },
      400: {
        description:
          'Invalid input (`validation_failed`), or `body` nested deeper than MAX_PAYLOAD_DEPTH (`payload_too_deep`).',
      },
      404: { description: "No such rule in the caller's organization (`not_found`)." },
      422: {
        description:
          'Target refused (`target_url_rejected` with `reason`: scheme, credentials or network policy), ' +
          'no default target (`no_default_target`) or inactive rule (`provider_inactive`).',
      },
    },
    handler: async ({ services, principal, body }) => ({
      status: 202,
      body: await services.send.send(principal, body),
    }),
  }),
];
