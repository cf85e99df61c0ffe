import { dataOf, type RelayClient } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { UsageError } from '../../errors';
import { collect, withExamples } from '../command-kit';
import { runBulk, type BulkSelection } from './events-bulk-loop';
import { addFilterOptions, filterOf, isEmptyFilter, type FilterOptions } from './events-filters';

interface BulkOptions extends FilterOptions {
  id?: string[];
  all?: boolean;
}

/** Exactly one way of choosing events: ids, filters, or --all; none at all is refused rather than guessed. */
export function selectionOf(opts: BulkOptions, now = Date.now()): BulkSelection {
  const filter = filterOf(opts, now);
  const ids = opts.id ?? [];
  const ways = [ids.length > 0, !isEmptyFilter(filter), Boolean(opts.all)].filter(Boolean).length;
  if (ways === 0) throw new UsageError('choose the events: --id <id>, filters such as --status failed, or --all');
  if (ways > 1) throw new UsageError('choose the events one way only: --id, filters, or --all');
  if (ids.length) return { ids };
  return opts.all ? { filter: {}, all: true } : { filter };
}

/**
 * Bulk retry's selection: with --destination, that destination's deliveries of the chosen events are retried
 * (the primary target is untouched); --destination alone chooses the events with a delivery to it.
 */
export function retrySelectionOf(opts: BulkOptions, now = Date.now()): BulkSelection {
  const { destination, ...rest } = opts;
  if (destination === undefined) return selectionOf(opts, now);
  const chosen = Boolean(rest.id?.length) || Boolean(rest.all) || !isEmptyFilter(filterOf(rest, now));
  const selection = chosen ? selectionOf(rest, now) : { filter: {} };
  if ('ids' in selection) return { ids: selection.ids, destination_id: destination };
  return { filter: { ...selection.filter, destination_id: destination }, destination_id: destination };
}

const describeSelection = (selection: BulkSelection) =>
  'ids' in selection
    ? `${new Set(selection.ids).size} listed`
    : 'all' in selection
      ? 'all'
      : Object.entries(selection.filter)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ');

/** How many events a selection matches now (for the confirmation). */
async function matching(client: RelayClient, selection: BulkSelection): Promise<number> {
  if ('ids' in selection) return new Set(selection.ids).size;
  const query = { ...selection.filter, per_page: 1 };
  return (await dataOf(client.GET('/events', { params: { query } }))).total;
}

type Verb = 'retry' | 'delete';
const past = { retry: 'retried', delete: 'deleted' } as const;

async function runBulkCommand(verb: Verb, opts: BulkOptions, cmd: Command, ctx: CommandContext) {
  const selection = verb === 'retry' ? retrySelectionOf(opts) : selectionOf(opts);
  const out = ctx.output(cmd);
  const { client } = await ctx.connect(cmd);
  if (verb === 'delete') {
    const count = await matching(client, selection);
    if (count === 0 && !('ids' in selection)) {
      out.result({ affected: 0, ids: [], calls: 0 }, () => 'No events match: nothing deleted.');
      return;
    }
    const what =
      'ids' in selection ? `${count} listed event(s)` : `${count} event(s) (${describeSelection(selection)})`;
    if (!(await out.confirm(`Delete ${what} and their attempts?`))) {
      out.note('Cancelled.');
      return;
    }
  }
  const spinner = out.spinner(`${past[verb]} 0…`);
  try {
    const total = await runBulk(
      (body) =>
        dataOf(
          verb === 'retry' ? client.POST('/events/bulk/retry', { body }) : client.POST('/events/bulk/delete', { body }),
        ),
      selection,
      (n) => spinner.update(`${past[verb]} ${n}…`),
    );
    spinner.stop();
    out.result(total, (t) => {
      if (verb === 'delete') return `Deleted ${t.affected} event(s).`;
      if (selection.destination_id === undefined) return `Retried ${t.affected} event(s) (queued events are skipped).`;
      const to = `destination ${selection.destination_id}`;
      return `Retried the deliveries to ${to} of ${t.affected} event(s) (queued and paused deliveries are skipped).`;
    });
  } finally {
    spinner.stop();
  }
}

function bulkCommand(events: Command, ctx: CommandContext, verb: Verb, description: string) {
  const destinationHelp =
    verb === 'retry'
      ? "retry this destination's deliveries of the events instead of the primary target (its id)"
      : undefined;
  const cmd = addFilterOptions(events.command(`bulk-${verb}`).description(description), destinationHelp)
    .option('--id <id>', 'an event id (repeat, or separate with commas)', collect)
    .option('--all', 'every event of the organization')
    .action((opts: BulkOptions, command: Command) => runBulkCommand(verb, opts, command, ctx));
  return cmd;
}

export function registerEventsBulkCommands(events: Command, ctx: CommandContext): void {
  withExamples(
    bulkCommand(events, ctx, 'retry', 'Retry many failed or delivered events: by ids, by the list filters, or all'),
    'relay events bulk-retry --status failed',
    'relay events bulk-retry --status failed --source stripe --from 24h',
    'relay events bulk-retry --id 0192f0c4-…,0192f0c5-…',
    'relay events bulk-retry --destination 0193a1b2-… --delivery-status failed   # one destination',
  );
  withExamples(
    bulkCommand(events, ctx, 'delete', 'Delete many events: by ids, by the list filters, or all (asks first)'),
    'relay events bulk-delete --status delivered --to 30d',
    'relay events bulk-delete --id 0192f0c4-… --id 0192f0c5-… --yes',
    'relay events bulk-delete --all --yes',
  );
}
