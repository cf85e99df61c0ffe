import { dataOf, type AnswerOf } from '@relay/client';
import { deliveryCountsSchema, eventDeliverySchema, eventFilterSchema } from '@relay/contracts';
import { z } from 'zod';
import type { ToolContext } from '../tool-kit';
import { truncated } from '../truncate';

type ApiSummary = AnswerOf<'/events', 'get'>['events'][number];
type ApiDetail = AnswerOf<'/events/{id}', 'get'>;

export const EVENT_STATUSES = ['queued', 'delivered', 'failed', 'paused', 'ignored'] as const;
// A list holds up to 100 summaries: a glimpse of each error (often an upstream's HTML page) is enough to choose.
const LAST_ERROR_CHARS = 200;

/** One event in a list: enough to choose which one to look at, never its payload. */
export const eventSummaryShape = {
  id: z.string(),
  source: z.string().describe('The first path segment of the ingest URL, e.g. "stripe".'),
  status: z.enum(EVENT_STATUSES),
  attempts: z.number().describe('Delivery attempts made so far, over every run.'),
  failure_reason: z.string().nullable().describe('Why the last run failed; null unless failed.'),
  last_error: z
    .string()
    .nullable()
    .describe(
      `The last attempt's error on the primary target (response status and body, or why no answer), its first ` +
        `${LAST_ERROR_CHARS} characters; list_event_attempts has the whole of each.`,
    ),
  acknowledged: z.boolean().describe('A failed event someone has acknowledged no longer needs attention.'),
  delivery_counts: deliveryCountsSchema.describe(
    `${deliveryCountsSchema.description ?? ''} Independent of status, which is the primary target's.`,
  ),
  created_at: z.string(),
  link: z.string().describe('The event in the dashboard.'),
};
export const eventSummarySchema = z.object(eventSummaryShape);

export const eventSummaryOf = (e: ApiSummary, link: ToolContext['link']): z.infer<typeof eventSummarySchema> => ({
  id: e.id,
  source: e.source,
  status: e.status,
  attempts: e.attempt_count,
  failure_reason: e.failure_reason,
  last_error: e.last_error === null ? null : e.last_error.slice(0, LAST_ERROR_CHARS),
  acknowledged: e.acknowledged,
  delivery_counts: e.delivery_counts,
  created_at: e.created_at,
  link: link(`/events/${e.id}`),
});

/** A date-time with its offset (`Z` or `+02:00`), as the api takes it: a bad one is refused naming the field. */
export const isoTime = z.iso.datetime({ offset: true });

/** The list filters of GET /events and of bulk actions, as an assistant fills them in. */
export const eventFilterShape = {
  search: z.string().min(1).max(200).optional().describe('Case-insensitive text in the source, payload and headers.'),
  status: z
    .enum(EVENT_STATUSES)
    .optional()
    .describe(
      'queued (being delivered), delivered, failed, or paused (its rule is unhealthy; resume_rule releases it).',
    ),
  source: z.string().max(64).optional().describe('Exact source name, as list_sources reports it.'),
  from: isoTime.optional().describe('Created at or after this time, ISO 8601 (e.g. 2025-01-31T22:00:00Z).'),
  to: isoTime.optional().describe('Created before this time, ISO 8601.'),
  needs_attention: z
    .boolean()
    .optional()
    .describe('true: failed and not yet acknowledged, the events someone should look at; false: all others.'),
  delivery_status: eventFilterSchema.shape.delivery_status,
  destination_id: eventFilterSchema.shape.destination_id.describe(
    `${eventFilterSchema.shape.destination_id.description ?? ''} Its id is in list_destinations.`,
  ),
  rule_id: eventFilterSchema.shape.rule_id.describe(
    `${eventFilterSchema.shape.rule_id.description ?? ''} Its id is in list_rules.`,
  ),
};
export type EventFilterArgs = { [K in keyof typeof eventFilterShape]?: z.infer<(typeof eventFilterShape)[K]> };

/** The filters as the API's query (needs_attention is the string 'true'/'false' there); unset ones left out. */
export function apiFilterOf(args: EventFilterArgs) {
  return {
    search: args.search,
    status: args.status,
    source: args.source,
    from: args.from,
    to: args.to,
    needs_attention:
      args.needs_attention === undefined ? undefined : (String(args.needs_attention) as 'true' | 'false'),
    delivery_status: args.delivery_status,
    destination_id: args.destination_id,
    rule_id: args.rule_id,
  };
}

/** The dashboard's Events page showing the same filters. */
export function eventListLink(args: EventFilterArgs, link: ToolContext['link']): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(eventFilterShape) as (keyof EventFilterArgs)[])
    if (args[key] !== undefined) params.set(key, String(args[key]));
  const query = params.toString();
  return link(query ? `/events?${query}` : '/events');
}

/** One event with its headers and the first part of its payload (a tool result or a resource must stay small). */
export const eventDetailShape = {
  ...eventSummaryShape,
  target_url: z.string().nullable().describe('Where it is delivered.'),
  delivered_at: z.string().nullable(),
  last_error: z.string().nullable().describe('The error of the last attempt, if it failed.'),
  next_attempt_at: z.string().nullable().describe('When the next attempt is due while queued.'),
  headers: z.record(z.string(), z.string()).describe('Headers as received; credentials masked.'),
  payload_preview: z.string().describe('The payload as JSON text, cut when long.'),
  payload_chars: z.number().describe('Length of the whole payload text.'),
  payload_truncated: z.boolean(),
  payload_note: z.string().nullable().describe('Says how to get the rest when the preview is cut.'),
  deliveries: z
    .array(eventDeliverySchema)
    .describe(
      "One per destination delivery (the rule's destinations: list_destinations), each with its own status and " +
        'attempts; retry_event and acknowledge_event act on one with destination_id.',
    ),
};
export const eventDetailSchema = z.object(eventDetailShape);

export function eventDetailOf(e: ApiDetail, link: ToolContext['link']): z.infer<typeof eventDetailSchema> {
  // A payload the api could not re-parse comes as its stored text; shown as is rather than quoted again.
  const text = e.payload_as_text && typeof e.payload === 'string' ? e.payload : JSON.stringify(e.payload);
  const preview = truncated(text);
  return {
    ...eventSummaryOf(e, link),
    target_url: e.target_url,
    delivered_at: e.delivered_at,
    last_error: e.last_error,
    next_attempt_at: e.next_attempt_at,
    headers: e.headers,
    payload_preview: preview.text,
    payload_chars: text.length,
    payload_truncated: preview.truncated,
    payload_note: preview.note,
    deliveries: e.deliveries,
  };
}

/** GET /events/{id} as a small detail; shared by get_event and the `relay://events/{id}` resource. */
export async function fetchEventDetail({ client, link }: ToolContext, id: string) {
  const event = await dataOf(client.GET('/events/{id}', { params: { path: { id } } }));
  return eventDetailOf(event, link);
}
