import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { withExamples } from '../command-kit';
import { attemptsTable, eventDetailText } from './events-show-format';

const path = (id: string) => ({ params: { path: { id } } });

function registerShow(events: Command, ctx: CommandContext) {
  const show = events
    .command('show')
    .description('Show one event: summary, headers and payload')
    .argument('<id>', 'the event id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const event = await dataOf(client.GET('/events/{id}', path(id)));
      out.result(event, (e) => eventDetailText(e, out.colors));
    });
  withExamples(show, 'relay events show 0192f0c4-…', "relay events show 0192f0c4-… --json | jq '.payload'");
}

function registerAttempts(events: Command, ctx: CommandContext) {
  const attempts = events
    .command('attempts')
    .description("List an event's delivery and hook attempts, in order")
    .argument('<id>', 'the event id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const answer = await dataOf(client.GET('/events/{id}/attempts', path(id)));
      out.result(answer, (a) => (a.attempts.length ? attemptsTable(a.attempts, out.colors) : 'No attempts yet.'));
    });
  withExamples(attempts, 'relay events attempts 0192f0c4-…', 'relay events attempts 0192f0c4-… --json');
}

function registerRetry(events: Command, ctx: CommandContext) {
  const retry = events
    .command('retry')
    .description('Deliver a failed or delivered event again (a new delivery run)')
    .argument('<id>', 'the event id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const queued = await dataOf(client.POST('/events/{id}/retry', path(id)));
      out.result(queued, (q) => `Event ${q.id} is queued for another delivery run.`);
    });
  withExamples(retry, 'relay events retry 0192f0c4-…', 'relay events bulk-retry --status failed   # many at once');
}

function registerAck(events: Command, ctx: CommandContext) {
  const ack = events
    .command('ack')
    .description('Acknowledge a failed event (it no longer needs attention), or give up on a blocked ordered head')
    .argument('<id>', 'the event id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const event = await dataOf(client.POST('/events/{id}/ack', path(id)));
      out.result(event, (e) => `Event ${e.id} is acknowledged.`);
    });
  withExamples(ack, 'relay events ack 0192f0c4-…', 'relay events list --needs-attention');
}

function registerDelete(events: Command, ctx: CommandContext) {
  const remove = events
    .command('delete')
    .alias('rm')
    .description('Delete an event and its attempts (asks first unless --yes)')
    .argument('<id>', 'the event id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      if (!(await out.confirm(`Delete event ${id} and its attempts?`))) {
        out.note('Cancelled.');
        return;
      }
      await dataOf(client.DELETE('/events/{id}', path(id)));
      out.result({ id, deleted: true }, () => `Deleted event ${id}.`);
    });
  withExamples(remove, 'relay events delete 0192f0c4-…', 'relay events delete 0192f0c4-… --yes');
}

export function registerEventsItemCommands(events: Command, ctx: CommandContext): void {
  registerShow(events, ctx);
  registerAttempts(events, ctx);
  registerRetry(events, ctx);
  registerAck(events, ctx);
  registerDelete(events, ctx);
}
