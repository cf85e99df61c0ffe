import { dataOf, ProblemError } from '@relay/client';
import { eventActionSchema } from '@relay/contracts';
import { z } from 'zod';
import { defineTool } from '../tool-kit';
import { apiFilterOf, eventFilterShape, eventListLink } from './event-views';

/** The api's cap: at most this many ids per call, or this many (oldest) matches of a filter. */
const BULK_CAP = 1000;
/** The retried ids a result names; `affected` says how many there were. */
const IDS_SHOWN = 20;

const badSelection = (detail: string) =>
  new ProblemError({ title: 'Invalid selection', status: 400, code: 'validation_failed', detail });

export const BULK_RETRY_EVENTS = defineTool({
  name: 'bulk_retry_events',
  title: 'Retry many events',
  description:
    'Starts a new delivery run of many failed or delivered events at once (queued ones are skipped), chosen ' +
    `either by ids (at most ${BULK_CAP}) or by the same filters as list_events (status, source, search, from, ` +
    `to, needs_attention; the oldest ${BULK_CAP} matches per call). Typical: status "failed" and a source once ` +
    'its target is fixed. Check the selection with list_events and confirm with the user first: every match is ' +
    'sent again. With no ids and no filter it would retry every event, which needs all: true. Returns how many ' +
    `were retried, whether more matched than the cap (call again), and the first ${IDS_SHOWN} ids. With ` +
    "destination_id (list_destinations), that destination's failed or delivered deliveries of the selected events " +
    'are retried instead and the primary target is untouched; typically with delivery_status "failed".',
  operation: 'POST /events/bulk/retry',
  input: {
    ids: z.array(z.uuid()).min(1).max(BULK_CAP).optional().describe('Exact event ids; not with the filters.'),
    ...eventFilterShape,
    all: z.boolean().optional().describe('true to retry every event of the organization when no filter is given.'),
    destination_id: eventActionSchema.shape.destination_id.describe(
      "Retry this destination's deliveries instead of the primary target: of the ids given, or of the events the " +
        'filters select that have a delivery to it (it is a filter too).',
    ),
  },
  output: {
    affected: z.number().describe('Events queued again.'),
    truncated: z.boolean().describe('More events matched than one call handles: call again for the rest.'),
    ids: z.array(z.string()).describe(`The first ${IDS_SHOWN} retried ids.`),
    link: z.string().describe('The events in the dashboard.'),
  },
  annotations: { destructiveHint: true, idempotentHint: false },
  async run(args, { client, link }) {
    // destination_id goes with ids as well as with filters: it is not one of the ways of choosing events.
    const { destination_id, ...choice } = args;
    const filter = apiFilterOf(choice);
    const filtered = Object.values(filter).some((v) => v !== undefined);
    if (args.ids && (filtered || args.all)) throw badSelection('Give either ids or filters (or all), not both.');
    const target = destination_id ? { destination_id } : {};
    const all = args.all === true && !filtered && !destination_id ? { all: true as const } : {};
    const body = args.ids ? { ids: args.ids, ...target } : { filter: { ...filter, ...target }, ...all, ...target };
    const result = await dataOf(client.POST('/events/bulk/retry', { body }));
    return {
      affected: result.affected,
      truncated: result.truncated,
      ids: result.ids.slice(0, IDS_SHOWN),
      link: args.ids ? link('/events') : eventListLink(args, link),
    };
  },
});
