import { dataOf } from '@relay/client';
import { destinationCreateSchema } from '@relay/contracts';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';
import { destinationIdInput, destinationSummary, destinationView } from './destination-views';
import {
  forwardHeadersInput,
  outboundHeadersChange,
  ruleOptionInputs,
  ruleOptionUpdates,
  transformPacingInputs,
} from './rule-option-inputs';
import { descriptionInput, ruleIdInput, targetUrlInput } from './rule-views';

// Destinations (`/rules/{id}/destinations`, docs/routing.md): further targets of one rule, each with its own
// filter, signing secret, headers, delivery policy, health, transform and pacing. The inputs are the API's field
// schemas (@relay/contracts) and the rule tools' own, since a destination's options have the rule's shapes.

const { name, filter, signing_secret } = destinationCreateSchema.shape;
const nameInput = name
  .unwrap()
  .describe("Unique in the rule (taken: destination_name_taken); default: the target's host.");
const filterInput = filter
  .unwrap()
  .unwrap()
  .describe(
    `${filter.description ?? ''} The same language as a rule's filter (docs/routing.md); try it first with ` +
      'dry_run_rule_filter and destination_id.',
  );
const secretInput = signing_secret.unwrap().unwrap();
const optionInputs = {
  forward_headers: forwardHeadersInput.optional(),
  set_headers: ruleOptionInputs.set_headers,
  remove_headers: ruleOptionInputs.remove_headers,
  delivery_policy: ruleOptionInputs.delivery_policy,
  unhealthy_after_seconds: ruleOptionInputs.unhealthy_after_seconds,
  ...transformPacingInputs,
};
const destinationPath = (id: string, destinationId: string) => ({ params: { path: { id, destinationId } } });

const listDestinations = defineTool({
  name: 'list_destinations',
  title: "List a rule's destinations",
  description:
    'The destinations of one rule, oldest first: further targets every webhook of the rule is also delivered to ' +
    'when the destination is active and its filter matches, each with its own attempts, status and health (the ' +
    "event's own status stays the primary target's). Use it to find a destination id for update_destination, " +
    'retry_event or acknowledge_event.',
  operation: 'GET /rules/{id}/destinations',
  input: { rule_id: ruleIdInput },
  output: { destinations: z.array(destinationSummary) },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ rule_id }, { client, link }) {
    const answer = await dataOf(client.GET('/rules/{id}/destinations', { params: { path: { id: rule_id } } }));
    return { destinations: answer.destinations.map((d) => destinationView(d, link)) };
  },
});

const getDestination = defineTool({
  name: 'get_destination',
  title: 'Get a destination',
  description:
    'One destination of a rule, as list_destinations shows it, plus its pacing state now: the rate in force (a ' +
    '429 halves it), deliveries in flight and waiting their turn, and a Retry-After hold from its target. Use it ' +
    "to see why the destination's deliveries are slow or held back.",
  operation: 'GET /rules/{id}/destinations/{destinationId}',
  input: { rule_id: ruleIdInput, destination_id: destinationIdInput },
  output: { destination: destinationSummary },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ rule_id, destination_id }, { client, link }) {
    const answer = await dataOf(
      client.GET('/rules/{id}/destinations/{destinationId}', destinationPath(rule_id, destination_id)),
    );
    return { destination: destinationView(answer, link) };
  },
});

const createDestination = defineTool({
  name: 'create_destination',
  title: 'Add a destination to a rule',
  description:
    'Adds a destination to a rule: from now on every webhook stored for the rule also gets a delivery to ' +
    '`target_url` when the destination is active and its `filter` (if any) matches, with its own retries and ' +
    'health. At most 20 per rule (destination_limit_reached). Refused when the target is not allowed ' +
    '(target_url_rejected). The signing secret is never shown again; without one, deliveries are signed with the ' +
    "install's DEFAULT_SIGNING_SECRET when set, never with the rule's. Options are off unless given: a `transform` " +
    "reshapes this destination's deliveries (try it with test_transform and destination_id), `rate_limit` and " +
    '`max_concurrency` pace them.',
  operation: 'POST /rules/{id}/destinations',
  input: {
    rule_id: ruleIdInput,
    name: nameInput.optional(),
    target_url: targetUrlInput,
    filter: filterInput.optional(),
    active: z.boolean().optional().describe('Default true; false stores it without delivering to it.'),
    description: descriptionInput.optional(),
    signing_secret: secretInput.optional(),
    ...optionInputs,
  },
  output: { destination: destinationSummary },
  annotations: { destructiveHint: false },
  async run({ rule_id, forward_headers, set_headers, remove_headers, ...fields }, { client, link }) {
    const headers = outboundHeadersChange({ forward_headers, set_headers, remove_headers });
    const body = { ...fields, ...(headers ? { outbound_headers: headers() } : {}) };
    const created = await dataOf(client.POST('/rules/{id}/destinations', { params: { path: { id: rule_id } }, body }));
    return { destination: destinationView(created, link) };
  },
});

const updateDestination = defineTool({
  name: 'update_destination',
  title: 'Update a destination',
  description:
    'Changes a destination of a rule: only the fields given change; null clears description, filter (every ' +
    'webhook goes), signing_secret, delivery_policy, unhealthy_after_seconds, transform, rate_limit and ' +
    'max_concurrency. `active: false` stops its new ' +
    'deliveries. forward_headers, set_headers and remove_headers each replace their list and keep the others.',
  operation: 'PATCH /rules/{id}/destinations/{destinationId}',
  input: {
    rule_id: ruleIdInput,
    destination_id: destinationIdInput,
    name: nameInput.optional(),
    target_url: targetUrlInput.optional(),
    filter: filterInput.nullable().optional(),
    active: z.boolean().optional(),
    description: descriptionInput.nullable().optional(),
    signing_secret: secretInput.nullable().optional(),
    ...optionInputs,
    forward_headers: optionInputs.forward_headers.describe('Replaces the forwarded headers; [] forwards none.'),
    delivery_policy: ruleOptionUpdates.delivery_policy,
    unhealthy_after_seconds: ruleOptionUpdates.unhealthy_after_seconds,
  },
  output: { destination: destinationSummary },
  annotations: { idempotentHint: true },
  async run({ rule_id, destination_id, forward_headers, set_headers, remove_headers, ...fields }, { client, link }) {
    // Only what the caller named goes to the API: an absent field is left as it is, a null clears it.
    const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    const headers = outboundHeadersChange({ forward_headers, set_headers, remove_headers });
    if (Object.keys(changes).length === 0 && !headers)
      throw new Error('Nothing to change: give at least one field of the destination.');
    const path = destinationPath(rule_id, destination_id);
    // The API replaces outbound_headers whole: the lists not named are kept from the stored destination.
    const stored = headers && (await dataOf(client.GET('/rules/{id}/destinations/{destinationId}', path)));
    const body = { ...changes, ...(headers && stored ? { outbound_headers: headers(stored.outbound_headers) } : {}) };
    const updated = await dataOf(client.PATCH('/rules/{id}/destinations/{destinationId}', { ...path, body }));
    return { destination: destinationView(updated, link) };
  },
});

const deleteDestination = defineTool({
  name: 'delete_destination',
  title: 'Delete a destination',
  description:
    'Deletes one destination of a rule with its deliveries, at once and for good; the rule, its primary target ' +
    'and its events are unchanged. To pause instead, use update_destination with active: false.',
  operation: 'DELETE /rules/{id}/destinations/{destinationId}',
  input: { rule_id: ruleIdInput, destination_id: destinationIdInput },
  output: { id: z.string(), rule_id: z.string(), deleted: z.literal(true), link: z.string() },
  annotations: { destructiveHint: true },
  async run({ rule_id, destination_id }, { client, link }) {
    await dataOf(client.DELETE('/rules/{id}/destinations/{destinationId}', destinationPath(rule_id, destination_id)));
    return { id: destination_id, rule_id, deleted: true as const, link: link(`/rules/${rule_id}`) };
  },
});

const resumeDestination = defineTool({
  name: 'resume_destination',
  title: 'Resume an unhealthy destination',
  description:
    'Marks a destination healthy again after its target was fixed (it turns unhealthy when the target answers ' +
    '410 or fails every attempt for its span) and queues each of its paused deliveries again, with a fresh set ' +
    "of attempts. Confirm with the user first: they are sent to the destination's current target (fix a moved " +
    'target with update_destination first). Returns the destination and how many deliveries were resumed.',
  operation: 'POST /rules/{id}/destinations/{destinationId}/resume',
  input: { rule_id: ruleIdInput, destination_id: destinationIdInput },
  output: {
    destination: destinationSummary,
    resumed_deliveries: z.number().describe('Paused deliveries queued again.'),
  },
  // Repeating it changes nothing more once the destination is healthy and nothing is paused.
  annotations: { destructiveHint: false, idempotentHint: true },
  async run({ rule_id, destination_id }, { client, link }) {
    const resumed = await dataOf(
      client.POST('/rules/{id}/destinations/{destinationId}/resume', destinationPath(rule_id, destination_id)),
    );
    return { destination: destinationView(resumed.destination, link), resumed_deliveries: resumed.resumed_deliveries };
  },
});

export const DESTINATION_TOOLS: readonly AnyRelayTool[] = [
  listDestinations,
  getDestination,
  createDestination,
  updateDestination,
  deleteDestination,
  resumeDestination,
];
