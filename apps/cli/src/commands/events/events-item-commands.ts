import { dataOf, type RelayClient } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { withExamples } from '../command-kit';
import { destinationNames, eventDestinationIdOf } from '../rules/destination-ref';
import { attemptsTable, eventDetailText } from './events-show-format';

const path = (id: string) => ({ params: { path: { id } } });

function registerShow(events: Command, ctx: CommandContext) {
  const show = events
    .command('show')
    .description('Show one event: summary, destination deliveries, headers and payload')
    .argument('<id>', 'the event id')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const event = await dataOf(client.GET('/events/{id}', path(id)));
      const names =
        event.deliveries.length && !out.json ? await destinationNames(client, event.provider_id) : undefined;
      out.result(event, (e) => eventDetailText(e, out.colors, Date.now(), names));
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

const destinationFlag = [
  '--destination <id|name>',
  "act on this destination's delivery of the event alone (a name is looked up in the event's rule)",
] as const;

/** The action's request: with --destination the body `{destination_id}`, else none (the primary target). */
async function actionRequest(client: RelayClient, id: string, destination: string | undefined) {
  if (destination === undefined) return path(id);
  return { ...path(id), body: { destination_id: await eventDestinationIdOf(client, id, destination) } };
}

function registerRetry(events: Command, ctx: CommandContext) {
  const retry = events
    .command('retry')
    .description('Deliver a failed or delivered event again (a new delivery run), or one destination delivery of it')
    .argument('<id>', 'the event id')
    .option(...destinationFlag)
    .action(async (id: string, flags: { destination?: string }, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const request = await actionRequest(client, id, flags.destination);
      const queued = await dataOf(client.POST('/events/{id}/retry', request));
      out.result(queued, (q) =>
        q.destination_id
          ? `The delivery of event ${q.id} to destination ${q.destination_id} is queued for another run.`
          : `Event ${q.id} is queued for another delivery run.`,
      );
    });
  withExamples(
    retry,
    'relay events retry 0192f0c4-…',
    'relay events retry 0192f0c4-… --destination archive   # that delivery alone',
    'relay events bulk-retry --status failed   # many at once',
  );
}

function registerAck(events: Command, ctx: CommandContext) {
  const ack = events
    .command('ack')
    .description(
      'Acknowledge a failed event or destination delivery (it no longer needs attention), or give up on a ' +
        'blocked ordered head',
    )
    .argument('<id>', 'the event id')
    .option(...destinationFlag)
    .action(async (id: string, flags: { destination?: string }, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const request = await actionRequest(client, id, flags.destination);
      const event = await dataOf(client.POST('/events/{id}/ack', request));
      out.result(event, (e) =>
        'body' in request
          ? `The delivery of event ${e.id} to destination ${request.body.destination_id} is acknowledged.`
          : `Event ${e.id} is acknowledged.`,
      );
    });
  withExamples(
    ack,
    'relay events ack 0192f0c4-…',
    'relay events ack 0192f0c4-… --destination 0193a1b2-…',
    'relay events list --needs-attention',
  );
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
