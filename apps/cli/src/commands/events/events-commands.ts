import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { withExamples } from '../command-kit';
import { registerEventsBulkCommands } from './events-bulk-commands';
import { registerEventsItemCommands } from './events-item-commands';
import { registerEventsList } from './events-list-command';
import { registerEventsTail } from './events-tail-command';

/** `relay events …`: the event history, its actions, and the live feed. */
export function registerEventsCommands(program: Command, ctx: CommandContext): void {
  const events = program.command('events').description('Inspect, retry, acknowledge, delete and follow webhook events');
  registerEventsList(events, ctx);
  registerEventsItemCommands(events, ctx);
  registerEventsBulkCommands(events, ctx);
  registerEventsTail(events, ctx);
  withExamples(
    events,
    'relay events list --status failed',
    'relay events show 0192f0c4-…',
    'relay events bulk-retry --status failed --source github',
    'relay events tail --json',
  );
}
