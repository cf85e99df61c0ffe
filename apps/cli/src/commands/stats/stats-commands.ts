import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { UsageError } from '../../errors';
import { withExamples } from '../command-kit';
import { durationMs, timeBound } from '../events/events-filters';
import { sourcesTable, statsText } from './stats-format';

interface StatsOptions {
  window?: string;
  from?: string;
  to?: string;
}

/** The window of GET /stats: `--window` back from `--to` (or now), or `--from`/`--to`; nothing = the API's 24h. */
export function statsWindow(opts: StatsOptions, now = Date.now()): { from?: string; to?: string } {
  if (opts.window !== undefined && opts.from !== undefined) throw new UsageError('give --window or --from, not both');
  const to = opts.to !== undefined ? timeBound(opts.to, now) : undefined;
  if (opts.window !== undefined) {
    const span = durationMs(opts.window);
    if (span === undefined || span === 0) throw new UsageError(`--window: expected a duration such as 1h or 7d`);
    const end = to ? Date.parse(to) : now;
    return { from: new Date(end - span).toISOString(), ...(to ? { to } : {}) };
  }
  return { ...(opts.from !== undefined ? { from: timeBound(opts.from, now) } : {}), ...(to ? { to } : {}) };
}

function registerStats(program: Command, ctx: CommandContext) {
  const stats = program
    .command('stats')
    .description('Delivery statistics: counts by status and source, success rate, latency percentiles')
    .option('--window <duration>', 'how far back from now (or --to): 1h, 24h, 7d… (default 24h, at most 90d)')
    .option('--from <when>', 'window start: ISO 8601, or a duration ago')
    .option('--to <when>', 'window end: ISO 8601, or a duration ago (default now)')
    .action(async (opts: StatsOptions, cmd: Command) => {
      const query = statsWindow(opts);
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const answer = await dataOf(client.GET('/stats', { params: { query } }));
      out.result(answer, (s) => statsText(s, out.colors));
    });
  withExamples(stats, 'relay stats', 'relay stats --window 7d', "relay stats --window 1h --json | jq '.success_rate'");
}

function registerSources(program: Command, ctx: CommandContext) {
  const sources = program
    .command('sources')
    .description('The sources webhooks arrived from, with their event counts')
    .action(async (_: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const answer = await dataOf(client.GET('/events/sources'));
      out.result(answer, (a) => (a.sources.length ? sourcesTable(a.sources) : 'No events yet.'));
    });
  withExamples(sources, 'relay sources', 'relay sources --json');
}

export function registerStatsCommands(program: Command, ctx: CommandContext): void {
  registerStats(program, ctx);
  registerSources(program, ctx);
}
