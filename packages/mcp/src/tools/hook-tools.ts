import { dataOf } from '@relay/client';
import { hookCreateSchema, resourceNameSchema } from '@relay/contracts';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';
import { descriptionInput, hookSummary, hookView, ruleIdInput, targetUrlInput } from './rule-views';

// Hooks (`/rules/{id}/hooks`): follow-up deliveries of a rule's events once their delivery succeeded or failed.

const listHooks = defineTool({
  name: 'list_hooks',
  title: "List a rule's hooks",
  description:
    "The hooks of one rule: URLs the relay also calls after an event's delivery by that rule succeeded " +
    '(provider_succeeded) or finally failed after all retries (provider_failed), e.g. to alert or to log.',
  operation: 'GET /rules/{id}/hooks',
  input: { rule_id: ruleIdInput },
  output: { hooks: z.array(hookSummary) },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ rule_id }, { client, link }) {
    const { hooks } = await dataOf(client.GET('/rules/{id}/hooks', { params: { path: { id: rule_id } } }));
    return { hooks: hooks.map((hook) => hookView(hook, link)) };
  },
});

const createHook = defineTool({
  name: 'create_hook',
  title: 'Create a hook',
  description:
    'Attaches a hook to a rule: after each delivery of the rule that succeeds (trigger provider_succeeded) or ' +
    'fails for good (provider_failed), the relay POSTs the payload to `target_url` with X-Relay-Delivery-Status ' +
    'and X-Relay-Response-Status headers. The trigger cannot be changed later.',
  operation: 'POST /rules/{id}/hooks',
  input: {
    rule_id: ruleIdInput,
    name: resourceNameSchema
      .optional()
      .describe('Unique in the rule (taken: hook_name_taken); default: the trigger, suffixed -2, -3, … if taken.'),
    trigger: hookCreateSchema.shape.trigger.describe('When the hook is called.'),
    target_url: targetUrlInput,
    active: z.boolean().optional().describe('Default true.'),
    description: descriptionInput.optional(),
  },
  output: { hook: hookSummary },
  annotations: { destructiveHint: false },
  async run({ rule_id, ...body }, { client, link }) {
    const hook = await dataOf(client.POST('/rules/{id}/hooks', { params: { path: { id: rule_id } }, body }));
    return { hook: hookView(hook, link) };
  },
});

const deleteHook = defineTool({
  name: 'delete_hook',
  title: 'Delete a hook',
  description: 'Deletes one hook of a rule, at once and for good; the rule itself and its deliveries are unchanged.',
  operation: 'DELETE /rules/{id}/hooks/{hookId}',
  input: { rule_id: ruleIdInput, hook_id: z.uuid().describe('The hook id (from list_hooks).') },
  output: { id: z.string(), rule_id: z.string(), deleted: z.literal(true), link: z.string() },
  annotations: { destructiveHint: true },
  async run({ rule_id, hook_id }, { client, link }) {
    await dataOf(client.DELETE('/rules/{id}/hooks/{hookId}', { params: { path: { id: rule_id, hookId: hook_id } } }));
    return { id: hook_id, rule_id, deleted: true as const, link: link(`/rules/${rule_id}`) };
  },
});

export const HOOK_TOOLS: readonly AnyRelayTool[] = [listHooks, createHook, deleteHook];
