import { dataOf } from '@relay/client';
import { Option, type Command } from 'commander';
import type { CommandContext } from '../../context';
import { UsageError } from '../../errors';
import { readSecretFromStdin } from '../admin-kit';
import { withExamples } from '../command-kit';
import {
  addDeliveryOptionFlags,
  deliveryOptionsBody,
  needsStoredDelivery,
  type DeliveryOptionFlags,
} from './delivery-option-flags';
import { destinationIdOf } from './destination-ref';
import { destinationDetail, type DestinationCreateBody, type DestinationUpdateBody } from './destination-views';
import { addRuleFilterFlags, filterFromFlags, type RuleFilterFlags } from './rule-filter-flags';
import { addTransformFlags, transformFromFlags, transformFromStdin, type TransformFlags } from './transform-flags';

// `relay rules destinations add|update`: the flags of `rules create|update` that a destination has too (name,
// target, description, signing secret from stdin, filter, transform, health span, delivery policy, outbound headers,
// pacing).

interface DestinationFlags extends DeliveryOptionFlags, RuleFilterFlags, TransformFlags {
  name?: string;
  target?: string;
  description?: string;
  clearDescription?: boolean;
  active?: boolean;
  inactive?: boolean;
  signingSecretStdin?: boolean;
  clearSigningSecret?: boolean;
}

/** The filter and transform the flags give (a file is read here) and a signing secret from stdin, into the body. */
async function addFilterAndSecret(flags: DestinationFlags, ctx: CommandContext, body: DestinationUpdateBody) {
  if (flags.signingSecretStdin && transformFromStdin(flags))
    throw new UsageError('stdin holds one input: give --signing-secret-stdin or --transform -');
  const filter = await filterFromFlags(flags);
  if (filter !== undefined) body.filter = filter;
  const transform = await transformFromFlags(flags, ctx.deps.stdin);
  if (transform !== undefined) body.transform = transform;
  if (flags.signingSecretStdin) body.signing_secret = await readSecretFromStdin(ctx.deps.stdin, 'signing secret');
}

function registerAdd(destinations: Command, ctx: CommandContext) {
  const add = addDeliveryOptionFlags(
    addTransformFlags(
      addRuleFilterFlags(
        destinations
          .command('add <rule-id>')
          .description('Add a destination to a rule: its webhooks are also delivered there (at most 20 per rule)')
          .option('--name <name>', "unique in the rule (default: the target's host, suffixed -2, -3, … if taken)")
          .requiredOption('--target <url>', 'where the webhooks are delivered (http or https)')
          .option('--description <text>', 'a note for people')
          .option('--inactive', 'add it turned off')
          .option(
            '--signing-secret-stdin',
            'read a signing secret (16-256 characters) from stdin; without one: DEFAULT_SIGNING_SECRET, ' +
              "never the rule's",
          ),
        false,
      ),
      'destination',
      false,
    ),
    'destination',
    false,
  ).action(async (ruleId: string, flags: DestinationFlags, cmd: Command) => {
    const out = ctx.output(cmd);
    const body: DestinationCreateBody = {
      target_url: flags.target!,
      active: !flags.inactive,
      ...deliveryOptionsBody(flags),
    };
    if (flags.name !== undefined) body.name = flags.name;
    if (flags.description !== undefined) body.description = flags.description;
    await addFilterAndSecret(flags, ctx, body);
    const { client } = await ctx.connect(cmd);
    const destination = await dataOf(
      client.POST('/rules/{id}/destinations', { params: { path: { id: ruleId } }, body }),
    );
    out.result(destination, (d) => `Added destination ${d.id}.\n${destinationDetail(d, out.colors)}`);
  });
  withExamples(
    add,
    'relay rules destinations add 0192f0c4-… --target https://archive.example.com/in',
    'relay rules destinations add 0192f0c4-… --name ci --target https://ci.example.com/hooks ' +
      '--filter \'{"body": {"ref": "refs/heads/main"}}\'',
    'relay rules destinations add 0192f0c4-… --target https://chat.example.com/in --filter @releases.json ' +
      '--signing-secret-stdin < chat-secret.txt',
    "relay rules destinations add 0192f0c4-… --target https://fraud.example.com --filter-cel 'body.total > 100' " +
      '--max-attempts 3 --set-header x-team=risk',
    'relay rules destinations add 0192f0c4-… --name chat --target https://chat.example.com/in ' +
      '--transform @to-chat.js --rate-limit 30/minute --max-concurrency 1',
  );
}

function updateBody(flags: DestinationFlags): DestinationUpdateBody {
  if (flags.description !== undefined && flags.clearDescription)
    throw new UsageError('give --description or --clear-description, not both');
  if (flags.signingSecretStdin && flags.clearSigningSecret)
    throw new UsageError('give --signing-secret-stdin or --clear-signing-secret, not both');
  const body: DestinationUpdateBody = {};
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.target !== undefined) body.target_url = flags.target;
  if (flags.description !== undefined) body.description = flags.description;
  if (flags.clearDescription) body.description = null;
  if (flags.active) body.active = true;
  if (flags.inactive) body.active = false;
  if (flags.clearSigningSecret) body.signing_secret = null;
  return body;
}

function registerUpdate(destinations: Command, ctx: CommandContext) {
  const update = addDeliveryOptionFlags(
    addTransformFlags(
      addRuleFilterFlags(
        destinations
          .command('update <rule-id> <destination>')
          .description('Change a destination (by id or name); only the fields given change')
          .option('--name <name>', 'a new name (unique in the rule)')
          .option('--target <url>', 'a new target URL')
          .option('--description <text>', 'a new description')
          .option('--clear-description', 'remove the description')
          .option('--active', 'turn it on')
          .addOption(new Option('--inactive', 'turn it off: its webhooks get no delivery').conflicts('active'))
          .option('--signing-secret-stdin', 'replace the signing secret with one read from stdin')
          .option(
            '--clear-signing-secret',
            'drop its secret: signed with DEFAULT_SIGNING_SECRET if set, else unsigned',
          ),
        true,
      ),
      'destination',
      true,
    ),
    'destination',
    true,
  ).action(async (ruleId: string, ref: string, flags: DestinationFlags, cmd: Command) => {
    const out = ctx.output(cmd);
    const body = updateBody(flags);
    // A flag changing part of an option (--max-attempts alone, --set-header…) keeps the rest as stored.
    const partial = needsStoredDelivery(flags);
    if (!partial) Object.assign(body, deliveryOptionsBody(flags));
    await addFilterAndSecret(flags, ctx, body);
    if (!partial && Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one option');
    const { client } = await ctx.connect(cmd);
    const path = { params: { path: { id: ruleId, destinationId: await destinationIdOf(client, ruleId, ref) } } };
    if (partial) {
      const stored = await dataOf(client.GET('/rules/{id}/destinations/{destinationId}', path));
      Object.assign(body, deliveryOptionsBody(flags, stored));
    }
    const destination = await dataOf(client.PATCH('/rules/{id}/destinations/{destinationId}', { ...path, body }));
    out.result(destination, (d) => `Updated destination ${d.id}.\n${destinationDetail(d, out.colors)}`);
  });
  withExamples(
    update,
    'relay rules destinations update 0192f0c4-… archive --target https://archive2.example.com/in',
    'relay rules destinations update 0192f0c4-… ci --filter-cel \'body.ref == "refs/heads/main"\'',
    'relay rules destinations update 0192f0c4-… ci --no-filter --inactive',
    'relay rules destinations update 0192f0c4-… 0193a1b2-… --max-attempts 8 --clear-signing-secret',
    'relay rules destinations update 0192f0c4-… chat --transform @to-chat.js --no-rate-limit',
  );
}

export function registerDestinationWriteCommands(destinations: Command, ctx: CommandContext): void {
  registerAdd(destinations, ctx);
  registerUpdate(destinations, ctx);
}
