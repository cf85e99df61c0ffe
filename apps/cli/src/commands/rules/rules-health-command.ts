import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { withExamples } from '../command-kit';
import { ruleDetail } from './rule-views';

/** `relay rules resume <id>`: an unhealthy rule's target is fixed; its paused events are delivered again. */
export function registerResume(rules: Command, ctx: CommandContext): void {
  const resume = rules
    .command('resume <id>')
    .description('Mark a rule healthy again and queue its paused events (each with a fresh set of attempts)')
    .action(async (id: string, _flags: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const resumed = await dataOf(client.POST('/rules/{id}/resume', { params: { path: { id } } }));
      out.result(resumed, (r) => {
        const n = r.resumed_events;
        return `Resumed rule ${r.rule.id}: ${n} paused event${n === 1 ? '' : 's'} queued again.\n${ruleDetail(r.rule, out.colors)}`;
      });
    });
  withExamples(resume, 'relay rules resume 0192f0c4-…');
}
