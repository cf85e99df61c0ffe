import { dataOf, ProblemError } from '@relay/client';
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
    `were retried, whether more matched than the cap (call again), and the first ${IDS_SHOWN} ids.`,
  operation: 'POST /events/bulk/retry',
  input: {
    ids: z.array(z.uuid()).min(1).max(BULK_CAP).optional().describe('Exact event ids; not with the filters.'),
    ...eventFilterShape,
    all: z.boolean().optional().describe('true to retry every event of the organization when no filter is given.'),
  },
  output: {
    affected: z.number().describe('Events queued again.'),
    truncated: z.boolean().describe('More events matched than one call handles: call again for the rest.'),
    ids: z.array(z.string()).describe(`The first ${IDS_SHOWN} retried ids.`),
    link: z.string().describe('The events in the dashboard.'),
  },
  annotations: { destructiveHint: true, idempotentHint: false },
  async run(args, { client, link }) {
    const filter = apiFilterOf(args);
    const filtered = Object.values(filter).some((v) => v !== undefined);
    if (args.ids && (filtered || args.all)) throw badSelection('Give either ids or filters (or all), not both.');
    const body = args.ids
      ? { ids: args.ids }
      : { filter, ...(args.all === true && !filtered ? { all: true as const } : {}) };
    const result = await dataOf(client.POST('/events/bulk/retry', { body }));
    return {
      affected: result.affected,
      truncated: result.truncated,
      ids: result.ids.slice(0, IDS_SHOWN),
      link: args.ids ? link('/events') : eventListLink(args, link),
    };
  },
});
