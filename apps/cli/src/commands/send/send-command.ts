import { dataOf } from '@relay/client';
import { Option, type Command } from 'commander';
import type { CommandContext } from '../../context';
import { UsageError } from '../../errors';
import { withExamples } from '../command-kit';
import { readBody, type BodyOptions } from './send-body';

interface SendOptions extends BodyOptions {
  rule?: string;
  /** The old spelling of --rule, still accepted. */
  provider?: string;
  source?: string;
  target?: string;
  idempotencyKey?: string;
}

/** The POST /api/send body without `body`: rule mode (a rule) or manual mode (source and target). */
export function sendModeOf(opts: SendOptions): { provider_id: string } | { source: string; target_url: string } {
  const rule = opts.rule ?? opts.provider;
  const manual = opts.source !== undefined || opts.target !== undefined;
  if (rule !== undefined && manual) throw new UsageError('choose one mode: --rule, or --source with --target');
  if (rule !== undefined) return { provider_id: rule };
  if (opts.source === undefined)
    throw new UsageError('choose a mode: --rule <id> (its source and target), or --source <name> [--target <url>]');
  // An empty target_url asks the relay for the organization's default target.
  return { source: opts.source, target_url: opts.target ?? '' };
}

export function registerSendCommand(program: Command, ctx: CommandContext): void {
  const send = program
    .command('send')
    .description('Send a webhook through the relay: through a rule, or to a source and target of your choice')
    .option('--rule <id>', "rule mode: a rule's id (relay rules list); its source and target are used")
    .addOption(new Option('--provider <id>', 'the same as --rule').hideHelp())
    .option('--source <source>', 'manual mode: the source to record the event under')
    .option('--target <url>', 'manual mode: where to deliver it (default: the organization default target)')
    .option('-d, --data <json>', 'the body, as JSON text')
    .option('-f, --file <path>', 'read the JSON body from a file, or from stdin with -')
    .option('--idempotency-key <key>', 'send the same key again to make a repeated call safe (no second event)')
    .action(async (opts: SendOptions, cmd: Command) => {
      const mode = sendModeOf(opts);
      const body = await readBody(opts, ctx.deps.stdin);
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const sent = await dataOf(
        client.POST('/api/send', {
          body: { ...mode, body },
          ...(opts.idempotencyKey ? { params: { header: { 'Idempotency-Key': opts.idempotencyKey } } } : {}),
        }),
      );
      out.result(sent, (s) => `Event ${s.id} queued: ${s.source} → ${s.target_url}`);
    });
  withExamples(
    send,
    'relay send --rule 0192f0c4-… --data \'{"action":"opened"}\'',
    'relay send --source github --target http://localhost:8080/hook --file payload.json',
    'cat payload.json | relay send --source stripe --file -   # to the default target',
    "relay send --source test --data '{}' --json | jq -r .id",
  );
}
