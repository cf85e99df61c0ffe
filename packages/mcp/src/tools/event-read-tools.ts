import { dataOf } from '@relay/client';
import { z } from 'zod';
import { defineTool, type AnyRelayTool } from '../tool-kit';
import { EVENT_DETAIL_TOOLS } from './event-detail-tools';
import { apiFilterOf, eventFilterShape, eventListLink, eventSummaryOf, eventSummarySchema } from './event-views';
import { getStats } from './stats-tool';

const listSources = defineTool({
  name: 'list_sources',
  title: 'List sources',
  description:
    'The sources webhooks arrived from (the first path segment of the ingest URL, e.g. "github", "stripe"), with ' +
    'how many events each has. Use it to learn which source names list_events can filter on.',
  operation: 'GET /events/sources',
  input: {},
  output: {
    sources: z.array(z.object({ source: z.string(), count: z.number(), link: z.string() })),
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(_args, { client, link }) {
    const { sources } = await dataOf(client.GET('/events/sources'));
    return {
      sources: sources.map((s) => ({ ...s, link: link(`/events?source=${encodeURIComponent(s.source)}`) })),
    };
  },
});

// Smaller pages than the API's (50, max 200): each summary costs the assistant's context.
const PER_PAGE_DEFAULT = 20;
const PER_PAGE_MAX = 100;

const listEvents = defineTool({
  name: 'list_events',
  title: 'List events',
  description:
    'Search the stored webhooks (events), newest first. Each has a status: queued (being delivered), delivered, ' +
    'failed (every attempt of its run failed) or paused (its rule is unhealthy; resume_rule). To find what went wrong, filter status "failed" or ' +
    'needs_attention true (failed and not acknowledged), optionally by source and a from/to time range. ' +
    'Events of a rule with destinations also have destination deliveries (delivery_counts): delivery_status ' +
    '"failed" finds those with a failed delivery, destination_id narrows to one destination. ' +
    'Returns summaries (no payloads) with total and pages; use get_event for one event, list_event_attempts ' +
    `for why it failed. per_page defaults to ${PER_PAGE_DEFAULT}, at most ${PER_PAGE_MAX}.`,
  operation: 'GET /events',
  input: {
    ...eventFilterShape,
    page: z.number().int().min(1).max(10_000_000).optional().describe('Page number, from 1 (default 1).'),
    per_page: z
      .number()
      .int()
      .min(1)
      .max(PER_PAGE_MAX)
      .optional()
      .describe(`Events per page, default ${PER_PAGE_DEFAULT}, at most ${PER_PAGE_MAX}.`),
  },
  output: {
    events: z.array(eventSummarySchema),
    total: z.number().describe('Events matching the filters, over all pages (an estimate when total_exact is false).'),
    total_exact: z.boolean().describe('false: over 10,000 matches, total is an estimate.'),
    page: z.number(),
    per_page: z.number(),
    pages: z.number(),
    link: z.string().describe('The same list in the dashboard.'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(args, { client, link }) {
    const query = { ...apiFilterOf(args), page: args.page ?? 1, per_page: args.per_page ?? PER_PAGE_DEFAULT };
    const page = await dataOf(client.GET('/events', { params: { query } }));
    return {
      events: page.events.map((e) => eventSummaryOf(e, link)),
      total: page.total,
      total_exact: page.total_exact,
      page: page.page,
      per_page: page.per_page,
      pages: page.pages,
      link: eventListLink(args, link),
    };
  },
});

// Attempt response bodies are the target's answers (often an HTML error page): a glimpse is enough to explain.
const RESPONSE_BODY_CHARS = 500;
const ATTEMPTS_SHOWN = 50;

const listEventAttempts = defineTool({
  name: 'list_event_attempts',
  title: 'List delivery attempts of an event',
  description:
    'The delivery attempts of one event, in order: the target URL, the HTTP status it answered (null when it ' +
    'could not be reached), the error (timeout, connection refused, …), the duration and the start of the ' +
    `response body (${RESPONSE_BODY_CHARS} characters). kind "hook" attempts are extra copies sent to hooks; ` +
    'kind "destination" attempts went to the destination destination_id names. ' +
    `Use it to explain why an event failed. Shows the last ${ATTEMPTS_SHOWN} attempts.`,
  operation: 'GET /events/{id}/attempts',
  input: { id: z.uuid().describe('The event id, from list_events.') },
  output: {
    event_id: z.string(),
    link: z.string().describe('The event in the dashboard, with its attempts.'),
    total: z.number().describe('Attempts of the event in all.'),
    attempts: z.array(
      z.object({
        id: z.string(),
        attempt_number: z.number(),
        kind: z.enum(['main', 'hook', 'destination']),
        destination_id: z.string().nullable().describe('The destination of a kind "destination" attempt.'),
        target_url: z.string(),
        response_status: z.number().nullable(),
        error: z.string().nullable(),
        response_body: z.string().nullable().describe(`The first ${RESPONSE_BODY_CHARS} characters.`),
        duration_ms: z.number(),
        started_at: z.string(),
      }),
    ),
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run({ id }, { client, link }) {
    const { attempts } = await dataOf(client.GET('/events/{id}/attempts', { params: { path: { id } } }));
    return {
      event_id: id,
      link: link(`/events/${id}`),
      total: attempts.length,
      attempts: attempts.slice(-ATTEMPTS_SHOWN).map((a) => ({
        id: a.id,
        attempt_number: a.attempt_number,
        kind: a.kind,
        destination_id: a.destination_id,
        target_url: a.target_url,
        response_status: a.response_status,
        error: a.error,
        response_body: a.response_body === null ? null : a.response_body.slice(0, RESPONSE_BODY_CHARS),
        duration_ms: a.duration_ms,
        started_at: a.started_at,
      })),
    };
  },
});

export const EVENT_READ_TOOLS: readonly AnyRelayTool[] = [
  listSources,
  listEvents,
  ...EVENT_DETAIL_TOOLS,
  listEventAttempts,
  getStats,
];
