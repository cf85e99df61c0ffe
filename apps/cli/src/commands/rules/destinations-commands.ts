import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { confirmed } from '../admin-kit';
import { withExamples } from '../command-kit';
import { destinationIdOf } from './destination-ref';
import { destinationDetail, destinationsTable } from './destination-views';
import { registerDestinationWriteCommands } from './destinations-write-commands';

// `relay rules destinations …`: a rule's further targets (docs/routing.md, "Destinations"). The rule is named by
// its id, as every rule command takes it; a destination by its id or its name (unique in the rule).

const destinationPath = (id: string, destinationId: string) => ({ params: { path: { id, destinationId } } });

function registerReads(destinations: Command, ctx: CommandContext) {
  const list = destinations
    .command('list <rule-id>')
    .alias('ls')
    .description("A rule's destinations, oldest first, with their state and filter")
    .action(async (ruleId: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const answer = await dataOf(client.GET('/rules/{id}/destinations', { params: { path: { id: ruleId } } }));
      out.result(answer, (a) => destinationsTable(a.destinations, out.colors));
    });
  withExamples(list, 'relay rules destinations list 0192f0c4-…', 'relay rules destinations list 0192f0c4-… --json');

  const show = destinations
    .command('show <rule-id> <destination>')
    .description('One destination in full (by id or name)')
    .action(async (ruleId: string, ref: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const id = await destinationIdOf(client, ruleId, ref);
      const destination = await dataOf(
        client.GET('/rules/{id}/destinations/{destinationId}', destinationPath(ruleId, id)),
      );
      out.result(destination, (d) => destinationDetail(d, out.colors));
    });
  withExamples(show, 'relay rules destinations show 0192f0c4-… archive');
}

function registerRemove(destinations: Command, ctx: CommandContext) {
  const remove = destinations
    .command('remove <rule-id> <destination>')
    .alias('rm')
    .description('Delete a destination and its deliveries (asks first unless --yes)')
    .action(async (ruleId: string, ref: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const path = destinationPath(ruleId, await destinationIdOf(client, ruleId, ref));
      // Read it first: the question names the target, and a wrong id fails before anything is asked.
      const destination = await dataOf(client.GET('/rules/{id}/destinations/{destinationId}', path));
      const what = `${destination.name} (${destination.id}, → ${destination.target_url})`;
      if (!(await confirmed(out, `Delete destination ${what} and its deliveries?`))) return;
      await dataOf(client.DELETE('/rules/{id}/destinations/{destinationId}', path));
      out.result(
        { id: destination.id, rule_id: ruleId, deleted: true },
        () => `Deleted destination ${destination.name} (${destination.id}).`,
      );
    });
  withExamples(
    remove,
    'relay rules destinations remove 0192f0c4-… archive',
    'relay rules destinations rm 0192f0c4-… 0193a1b2-… --yes',
  );
}

function registerResume(destinations: Command, ctx: CommandContext) {
  const resume = destinations
    .command('resume <rule-id> <destination>')
    .description('Mark a destination healthy again and queue its paused deliveries (each with fresh attempts)')
    .action(async (ruleId: string, ref: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const path = destinationPath(ruleId, await destinationIdOf(client, ruleId, ref));
      const resumed = await dataOf(client.POST('/rules/{id}/destinations/{destinationId}/resume', path));
      out.result(resumed, (r) => {
        const n = r.resumed_deliveries;
        const queued = `${n} paused deliver${n === 1 ? 'y' : 'ies'} queued again`;
        return `Resumed destination ${r.destination.name}: ${queued}.\n${destinationDetail(r.destination, out.colors)}`;
      });
    });
  withExamples(resume, 'relay rules destinations resume 0192f0c4-… archive');
}

export function registerDestinationsCommands(rules: Command, ctx: CommandContext): void {
  const destinations = rules
    .command('destinations')
    .alias('dest')
    .description("A rule's destinations: further targets, each with its own filter, signing, policy and health");
  withExamples(
    destinations,
    'relay rules destinations list 0192f0c4-…',
    'relay rules destinations add 0192f0c4-… --name archive --target https://archive.example.com/in',
    'relay rules destinations update 0192f0c4-… archive --filter-cel \'body.action == "released"\'',
    'relay rules destinations resume 0192f0c4-… archive',
  );
  registerReads(destinations, ctx);
  registerDestinationWriteCommands(destinations, ctx);
  registerRemove(destinations, ctx);
  registerResume(destinations, ctx);
}
