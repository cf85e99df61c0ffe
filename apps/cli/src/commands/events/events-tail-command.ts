import { EVENT_STATUSES } from '@relay/client';
import { Option, type Command } from 'commander';
import type { CommandContext } from '../../context';
import { openEventStream } from '../../stream/event-stream';
import type { FeedMessage } from '../../stream/feed-message';
import { withExamples } from '../command-kit';
import { createTailFilter, tailLine, type TailFilter } from './events-tail-lines';

/**
 * How `tail` learns that the user wants to stop (Ctrl-C). Replaceable so a test can stop it without a signal;
 * answers a function that removes the handler again.
 */
export const interruptHook = {
  on(handler: () => void): () => void {
    process.once('SIGINT', handler);
    process.once('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
};

export function registerEventsTail(events: Command, ctx: CommandContext): void {
  const tail = events
    .command('tail')
    .description('Follow new events, attempts and status changes live (Ctrl-C to stop)')
    .option('--source <source>', 'only messages about events of this source')
    .addOption(
      new Option('--status <status>', 'only new events and status changes with this status').choices(EVENT_STATUSES),
    )
    .action(async (opts: TailFilter, cmd: Command) => {
      const out = ctx.output(cmd);
      const connection = await ctx.connect(cmd);
      const now = ctx.deps.now ?? (() => new Date());
      const accepts = createTailFilter(opts, async (id) => {
        const answer = await connection.client.GET('/events/{id}', { params: { path: { id } } });
        return answer.data?.source;
      });
      // Messages are printed in arrival order even when one waits for a source lookup.
      let printing = Promise.resolve();
      const print = (message: FeedMessage) => {
        printing = printing
          .then(async () => {
            if (await accepts(message)) out.streamItem(message, (m) => tailLine(m, out.colors, now()));
          })
          .catch((error: unknown) => out.note(`could not show a message: ${String(error)}`));
      };
      const stream = openEventStream({
        baseUrl: connection.baseUrl,
        headers: connection.headers,
        fetch: connection.fetch,
        onMessage: print,
        onState(state, detail) {
          if (state === 'open') out.note(`Following events on ${connection.baseUrl} (Ctrl-C to stop).`);
          if (state === 'reconnecting' && detail)
            out.note(`Connection lost (${detail.reason}); reconnecting in ${Math.round(detail.delayMs / 100) / 10}s…`);
        },
      });
      const off = interruptHook.on(() => stream.close());
      try {
        await stream.done;
      } finally {
        off();
        await printing;
      }
    });
  withExamples(
    tail,
    'relay events tail',
    'relay events tail --source github --json',
    'relay events tail --status failed',
    'relay listen --forward-to http://localhost:8080/hook   # forward them to your program as well',
  );
}
