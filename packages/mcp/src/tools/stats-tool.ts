import { dataOf, ProblemError } from '@relay/client';
import { z } from 'zod';
import { defineTool } from '../tool-kit';
import { isoTime } from './event-views';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MAX_WINDOW_MS = 90 * UNIT_MS.d;
const TOP_SOURCES = 10;
const TOP_DESTINATIONS = 10;
// The dashboard's overview offers these windows; another window links to its default.
const OVERVIEW_WINDOWS = new Set(['1h', '24h', '7d', '30d']);

const badWindow = (detail: string) =>
  new ProblemError({ title: 'Invalid window', status: 400, code: 'validation_failed', detail });

/** The [from, to) of a window like '24h' ending now, or of explicit from/to (either may be left out). */
function windowOf(args: { window?: string; from?: string; to?: string }, now: Date) {
  if (args.window === undefined) return { from: args.from, to: args.to };
  if (args.from !== undefined || args.to !== undefined) throw badWindow('Give either window or from/to, not both.');
  const match = /^(\d{1,5})([mhd])$/.exec(args.window);
  if (!match) throw badWindow(`window "${args.window}" is not a number with m, h or d (e.g. 90m, 24h, 7d).`);
  const span = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (span <= 0 || span > MAX_WINDOW_MS) throw badWindow('The window is between 1 minute and 90 days.');
  return { from: new Date(now.getTime() - span).toISOString(), to: now.toISOString() };
}

const counts = {
  total: z.number(),
  queued: z.number(),
  delivered: z.number(),
  failed: z.number(),
  paused: z.number().describe('Waiting for their unhealthy rule to be resumed.'),
  ignored: z.number().describe("Its rule's filter did not match."),
};

export const getStats = defineTool({
  name: 'get_stats',
  title: 'Delivery statistics',
  description:
    'How deliveries went for events created in a time window: counts by status, how many need attention ' +
    '(failed, not acknowledged), the success rate (delivered / (delivered + failed), 0..1) and the delivery ' +
    `latency percentiles p50/p95/p99 in milliseconds from ingest to success, plus the ${TOP_SOURCES} busiest ` +
    `sources and the ${TOP_DESTINATIONS} busiest destinations (a rule's further targets) with their deliveries. ` +
    'Give window (e.g. "1h", "24h", "7d"; at most 90 days, ending now) or from/to (ISO 8601); the ' +
    'default is the last 24 hours. Use it for "how are deliveries going" before listing failed events.',
  operation: 'GET /stats',
  input: {
    window: z.string().optional().describe('A window ending now: a number and m, h or d, e.g. "24h" or "7d".'),
    from: isoTime.optional().describe('Window start (inclusive), ISO 8601. Instead of window.'),
    to: isoTime.optional().describe('Window end (exclusive), ISO 8601. Default now.'),
  },
  output: {
    from: z.string(),
    to: z.string(),
    total: z.number().describe('Events created in the window.'),
    by_status: z.object({
      queued: z.number(),
      delivered: z.number(),
      failed: z.number(),
      paused: z.number(),
      ignored: z.number(),
    }),
    needs_attention: z.number().describe('Failed and not acknowledged.'),
    success_rate: z.number().nullable().describe('0..1; null when nothing has finished.'),
    latency_ms: z.object({ p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable() }),
    top_sources: z.array(z.object({ source: z.string(), ...counts, link: z.string() })),
    top_destinations: z
      .array(
        z.object({
          destination_id: z.string(),
          name: z.string(),
          rule_id: z.string(),
          total: z.number().describe('Deliveries of events created in the window.'),
          queued: z.number(),
          delivered: z.number(),
          failed: z.number(),
          paused: z.number().describe('Waiting for the unhealthy destination to be resumed.'),
          success_rate: z.number().nullable(),
          link: z.string().describe("The failed deliveries' events in the dashboard."),
        }),
      )
      .describe('Destination deliveries per destination; the event counts above are the primary target only.'),
    link: z.string().describe('The overview page of the dashboard.'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true },
  async run(args, { client, link }) {
    const { from, to } = windowOf(args, new Date());
    // The series is not returned: the widest bucket keeps it to a few rows.
    const stats = await dataOf(client.GET('/stats', { params: { query: { from, to, bucket: '1d' } } }));
    const overview = args.window && OVERVIEW_WINDOWS.has(args.window) ? `/?window=${args.window}` : '/';
    return {
      from: stats.from,
      to: stats.to,
      total: stats.total,
      by_status: stats.by_status,
      needs_attention: stats.needs_attention,
      success_rate: stats.success_rate,
      latency_ms: stats.latency_ms,
      top_sources: stats.by_source.slice(0, TOP_SOURCES).map((s) => ({
        source: s.source,
        total: s.total,
        queued: s.queued,
        delivered: s.delivered,
        failed: s.failed,
        paused: s.paused,
        ignored: s.ignored,
        link: link(`/events?source=${encodeURIComponent(s.source)}`),
      })),
      top_destinations: stats.by_destination.slice(0, TOP_DESTINATIONS).map((d) => ({
        ...d,
        link: link(`/events?delivery_status=failed&destination_id=${d.destination_id}`),
      })),
      link: link(overview),
    };
  },
});
