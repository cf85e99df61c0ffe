import { dataOf } from '@relay/client';
import { Option, type Command } from 'commander';
import type { CommandContext } from '../context';
import { UsageError } from '../errors';
import type { Colors } from '../output/colors';
import type { EventStatus } from '../stream/feed-message';
import { withExamples } from '../commands/command-kit';
import type { ForwardResult } from './forwarder';
import { startListening } from './listen-session';

interface ListenFlags {
  forwardTo: string;
  source?: string;
  status?: EventStatus;
}

function targetUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--forward-to must be a URL such as http://localhost:8080/webhooks, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--forward-to must be an http:// or https:// URL, got "${value}"`);
  return url.href;
}

/** One human line: time, source, event id, the local answer (or why there was none), duration. */
export function listenLine(r: ForwardResult, colors: Colors): string {
  // The user's own clock, as a terminal shows it; --json keeps the ISO time.
  const time = new Date(r.time).toTimeString().slice(0, 8);
  const outcome =
    r.status !== null
      ? colors[r.status < 300 ? 'green' : r.status < 400 ? 'yellow' : 'red'](`→ ${r.status}`)
      : colors.red(`→ error: ${r.error}`);
  return `${colors.dim(time)}  ${(r.source ?? '?').padEnd(12)}  ${r.event_id}  ${outcome}  ${r.duration_ms} ms`;
}

/** Resolves at the first Ctrl-C (or SIGTERM); the caller's cleanup replaces the default "kill the process". */
function interrupted(): { promise: Promise<void>; dispose(): void } {
  let handler = () => {};
  const promise = new Promise<void>((resolve) => (handler = () => resolve()));
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return {
    promise,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

export function registerListenCommand(program: Command, ctx: CommandContext): void {
  const listen = program
    .command('listen')
    .description("Forward live webhooks to a local URL (a tunnel): each new event's exact bytes and headers")
    .requiredOption('--forward-to <url>', 'the local URL that receives each webhook as a POST', targetUrl)
    .option('--source <source>', 'only events of this source')
    .addOption(
      new Option('--status <status>', 'forward when an event reaches this status instead of when it arrives').choices([
        'queued',
        'delivered',
        'failed',
      ]),
    )
    .action(async (flags: ListenFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const connection = await ctx.connect(cmd);
      const endpoint = await dataOf(connection.client.GET('/config/endpoint'));
      // What to do next is for people: on stderr (stdout carries only the event lines), even with --json.
      const say = (text: string) => {
        if (!out.quiet) ctx.deps.stderr.write(`${text}\n`);
      };
      const ingest = flags.source
        ? endpoint.source_url_template?.replace('{source}', encodeURIComponent(flags.source))
        : endpoint.ingest_url;
      say(
        ingest
          ? `Send webhooks to ${ingest}${flags.source ? '' : ' (or add the source as the first path segment)'}`
          : 'This organization receives no webhooks at the moment (no ingest URL accepts them).',
      );
      let ready = false;
      const session = await startListening({
        connection,
        forwardTo: flags.forwardTo,
        ...(flags.source ? { source: flags.source } : {}),
        ...(flags.status ? { status: flags.status } : {}),
        onForwarded: (result) => out.streamItem(result, (r) => listenLine(r, out.colors)),
        onNote: say,
        onOpen: () => {
          if (ready) return;
          ready = true;
          const which = [flags.source && `source ${flags.source}`, flags.status && `on status ${flags.status}`];
          const filter = which.filter(Boolean).join(', ');
          say(`Forwarding ${filter ? `${filter} ` : ''}to ${flags.forwardTo}, Ctrl-C to stop`);
        },
      });
      const interrupt = interrupted();
      try {
        await Promise.race([session.done, interrupt.promise]);
      } finally {
        interrupt.dispose();
        session.stop();
      }
      await session.done;
    });
  withExamples(
    listen,
    'relay listen --forward-to http://localhost:8080/webhooks',
    'relay listen --forward-to http://localhost:8080/github --source github',
    'relay listen --forward-to http://localhost:8080/failed --status failed   # events whose delivery failed',
    'relay listen --forward-to http://localhost:8080/webhooks --json | jq .status',
  );
}
