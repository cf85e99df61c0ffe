import { dataOf, type AnswerOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { UsageError } from '../../errors';
import { formatTable } from '../../output/table';
import type { Colors } from '../../output/colors';
import { collect, positiveInt, withExamples } from '../command-kit';
import { destinationIdOf } from './destination-ref';
import { addRuleFilterFlags, filterFromFlags, type RuleFilterFlags } from './rule-filter-flags';

type DryRun = AnswerOf<'/rules/{id}/dry-run', 'post'>;

interface DryRunFlags extends RuleFilterFlags {
  events?: string;
  eventId?: string[];
  destination?: string;
}

/** "Matched 12 of the last 50 webhooks." and one line per webhook tried. */
function dryRunText(run: DryRun, colors: Colors): string {
  const tried = run.matched + run.not_matched;
  if (tried === 0) return 'No stored webhooks of this rule to try the filter on yet.';
  const summary = `Matched ${run.matched} of the ${tried} webhook${tried === 1 ? '' : 's'} tried.`;
  const table = formatTable(run.results, [
    { header: 'event', value: (r) => r.event_id },
    { header: 'result', value: (r) => (r.matched ? colors.green('matched') : colors.gray('ignored')) },
  ]);
  return `${summary}\n${table}`;
}

/**
 * `relay rules dry-run <id> --filter …`: a filter tried on the rule's stored webhooks, changing nothing. With
 * --destination alone it tries that destination's saved filter; with both, the given filter as that destination's.
 */
export function registerDryRun(rules: Command, ctx: CommandContext): void {
  const dryRun = addRuleFilterFlags(
    rules
      .command('dry-run <id>')
      .description("Try a routing filter on the rule's newest stored webhooks (read only; nothing is saved)")
      .option('--events <n>', 'how many of the newest webhooks to try (default 50, at most 1000)')
      .option('--event-id <id>', 'try this webhook of the rule instead (repeat it)', collect)
      .option('--destination <id|name>', "one of the rule's destinations: without a filter flag, its saved filter"),
    false,
  ).action(async (id: string, flags: DryRunFlags, cmd: Command) => {
    const out = ctx.output(cmd);
    const filter = await filterFromFlags(flags);
    if (!filter && flags.destination === undefined)
      throw new UsageError(
        "give the filter to try: --filter '<json>', --filter @file.json, --filter-cel, or --destination <id|name>",
      );
    if (flags.events !== undefined && flags.eventId) throw new UsageError('give --events or --event-id, not both');
    const { client } = await ctx.connect(cmd);
    const body = {
      ...(filter ? { filter } : {}),
      ...(flags.destination === undefined
        ? {}
        : { destination_id: await destinationIdOf(client, id, flags.destination) }),
      ...(flags.events === undefined ? {} : { events: positiveInt(flags.events) }),
      ...(flags.eventId ? { event_ids: flags.eventId } : {}),
    };
    const run = await dataOf(client.POST('/rules/{id}/dry-run', { params: { path: { id } }, body }));
    out.result(run, (r) => dryRunText(r, out.colors));
  });
  withExamples(
    dryRun,
    'relay rules dry-run 0192f0c4-… --filter \'{"body": {"total": {"$gt": 100}}}\'',
    'relay rules dry-run 0192f0c4-… --filter @filter.json --events 500',
    'relay rules dry-run 0192f0c4-… --filter-cel \'body.ref == "refs/heads/main"\' --json',
    'relay rules dry-run 0192f0c4-… --destination ci   # the saved filter of destination "ci"',
  );
}
