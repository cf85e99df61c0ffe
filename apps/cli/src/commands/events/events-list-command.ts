import { dataOf, type AnswerOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { UsageError } from '../../errors';
import { statusStyle, type Colors } from '../../output/colors';
import { formatTable } from '../../output/table';
import { ago, positiveInt, withExamples } from '../command-kit';
import { addFilterOptions, filterOf, type FilterOptions } from './events-filters';

export type EventSummary = AnswerOf<'/events', 'get'>['events'][number];
const MAX_PER_PAGE = 200;

/** "2/3 delivered, 1 failed": the event's destination deliveries (routing); empty when it has none. */
export function deliveryCountsText(counts: EventSummary['delivery_counts'], colors: Colors): string {
  if (counts.total === 0) return '';
  const open = (['failed', 'paused', 'queued'] as const)
    .filter((status) => counts[status] > 0)
    .map((status) => colors[statusStyle(status)](`${counts[status]} ${status}`));
  return [`${counts.delivered}/${counts.total} delivered`, ...open].join(', ');
}

/** The event table every list-like command prints: the full id, so it can be copied into the next command. */
export function eventsTable(events: readonly EventSummary[], colors: Colors, now = Date.now()): string {
  return formatTable(events, [
    { header: 'id', value: (e) => e.id },
    { header: 'source', value: (e) => e.source, maxWidth: 24 },
    { header: 'status', value: (e) => colors[statusStyle(e.status)](e.acknowledged ? `${e.status} (ack)` : e.status) },
    { header: 'attempts', value: (e) => String(e.attempt_count), align: 'right' },
    { header: 'deliveries', value: (e) => deliveryCountsText(e.delivery_counts, colors) },
    { header: 'reason', value: (e) => e.failure_reason ?? '', maxWidth: 40 },
    { header: 'received', value: (e) => ago(e.created_at, now) },
  ]);
}

interface ListOptions extends FilterOptions {
  page?: number;
  perPage?: number;
}

export function registerEventsList(events: Command, ctx: CommandContext): void {
  const list = addFilterOptions(events.command('list').alias('ls').description('List events, newest first'))
    .option('--page <n>', 'the page to show', positiveInt, 1)
    .option('--per-page <n>', `events per page (at most ${MAX_PER_PAGE})`, (v) => {
      const n = positiveInt(v);
      if (n > MAX_PER_PAGE) throw new UsageError(`--per-page: at most ${MAX_PER_PAGE}, got ${n}`);
      return n;
    })
    .action(async (opts: ListOptions, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const query = {
        ...filterOf(opts),
        page: opts.page ?? 1,
        ...(opts.perPage !== undefined ? { per_page: opts.perPage } : {}),
      };
      const page = await dataOf(client.GET('/events', { params: { query } }));
      out.result(page, (p) => (p.events.length ? eventsTable(p.events, out.colors) : 'No events match.'));
      if (page.total > 0) out.note(pageNote(page));
    });
  withExamples(
    list,
    'relay events list',
    'relay events list --status failed --source github',
    'relay events list --from 2h --search order_id',
    'relay events list --needs-attention --per-page 200 --page 2',
    "relay events list --json | jq -r '.events[].id'",
  );
}

/** "page 1 of 3 (120 events)"; past 10,000 matches the API estimates the total, and the note says so. */
export function pageNote(page: { page: number; pages: number; total: number; total_exact?: boolean }): string {
  const about = page.total_exact === false ? 'about ' : '';
  return `page ${page.page} of ${page.pages} (${about}${page.total} events)`;
}
