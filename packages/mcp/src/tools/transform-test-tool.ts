import { dataOf } from '@relay/client';
import { transformCode, transformTestResultSchema, transformTestSchema } from '@relay/contracts';
import { z } from 'zod';
import { defineTool } from '../tool-kit';
import { ruleIdInput } from './rule-views';

// POST /rules/{id}/transform-test: a transform run on one stored webhook of the rule in the relay's sandbox, before
// it is saved with update_rule or update_destination. The answer is the API's own: the request the transform
// returns, or its error with line and cause, and the console output either way.

const { event_id, destination_id } = transformTestSchema.shape;
const [success, failure] = transformTestResultSchema.options;

export const testTransform = defineTool({
  name: 'test_transform',
  title: "Try a transform on one of a rule's webhooks",
  description:
    "Runs a transform on one stored webhook of the rule in the relay's sandbox and answers the request it returns, " +
    'or its error with line and cause, with its console output; nothing is sent or saved. The code is JavaScript ' +
    "calling addHandler('transform', (request, context) => request) (docs/transformations.md); request is " +
    "{body, headers, path, query}. event_id is one of the rule's webhooks (list_events); ok: false carries error " +
    '{message, line, cause: timeout | memory | error | invalid_output | too_large}. Without `transform` it runs ' +
    "the saved one: the rule's, or that of destination_id's destination (list_destinations). Use it before " +
    'setting `transform` with update_rule or update_destination. Sensitive headers are masked, as the events ' +
    'show them.',
  operation: 'POST /rules/{id}/transform-test',
  input: {
    id: ruleIdInput,
    transform: transformCode.optional().describe(`${transformCode.description} Absent: the saved transform.`),
    event_id,
    destination_id,
  },
  output: {
    ok: z.boolean().describe('false: the transform failed (see error); a delivery would end failed, transform_error.'),
    request: success.shape.request.optional(),
    error: failure.shape.error.optional(),
    logs: success.shape.logs,
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ id, ...body }, { client }) {
    return dataOf(client.POST('/rules/{id}/transform-test', { params: { path: { id } }, body }));
  },
});
