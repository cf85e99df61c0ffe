import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { UsageError } from '../../errors';
import { readSecretFromStdin } from '../admin-kit';
import { positiveInt, withExamples } from '../command-kit';
import { addRuleFilterFlags, filterFromFlags, type RuleFilterFlags } from './rule-filter-flags';
import { addRuleOptionFlags, needsStoredRule, ruleOptionsBody, type RuleOptionFlags } from './rule-option-flags';
import { ruleDetail, type RuleCreateBody, type RuleUpdateBody } from './rule-views';
import { addTransformFlags, transformFromFlags, transformFromStdin, type TransformFlags } from './transform-flags';
import { registerResume } from './rules-health-command';
import { registerRotateVerification } from './rules-verification-command';

const byId = (id: string) => ({ params: { path: { id } } });

interface RuleFlags extends RuleOptionFlags, RuleFilterFlags, TransformFlags {
  name?: string;
  source?: string;
  target?: string;
  description?: string;
  clearDescription?: boolean;
  inactive?: boolean;
  signingSecretStdin?: boolean;
  clearSigningSecret?: boolean;
}

/** Puts the filter and the transform the flags give (a file or stdin is read here) into the body. */
async function addFilterAndTransform(flags: RuleFlags, ctx: CommandContext, body: RuleUpdateBody) {
  const filter = await filterFromFlags(flags);
  if (filter !== undefined) body.filter = filter;
  const transform = await transformFromFlags(flags, ctx.deps.stdin);
  if (transform !== undefined) body.transform = transform;
}

/** Checks, before reading anything, that the flags ask stdin for one thing at most: there is one stdin. */
function oneStdinInput(flags: RuleFlags) {
  const readers = [flags.signingSecretStdin, flags.verificationSecretStdin, transformFromStdin(flags)];
  if (readers.filter(Boolean).length > 1)
    throw new UsageError(
      'stdin holds one input: give one of --signing-secret-stdin, --verification-secret-stdin and --transform -',
    );
}

/** Reads the secrets a command's flags ask for from stdin. */
async function secretsFromStdin(flags: RuleFlags, ctx: CommandContext, body: RuleUpdateBody) {
  if (flags.signingSecretStdin) body.signing_secret = await readSecretFromStdin(ctx.deps.stdin, 'signing secret');
  if (flags.verificationSecretStdin)
    body.verification_secret = await readSecretFromStdin(ctx.deps.stdin, 'verification secret');
}

function registerCreate(rules: Command, ctx: CommandContext) {
  const create = addRuleOptionFlags(
    addTransformFlags(
      addRuleFilterFlags(
        rules
          .command('create')
          .description('Create a rule: deliver the webhooks of one source to a target URL')
          .option('--name <name>', 'unique in the organization (default: the source, suffixed -2, -3, … if taken)')
          .requiredOption('--source <source>', 'the webhook source it serves (the first path segment of ingest)')
          .requiredOption('--target <url>', 'where its webhooks are delivered (http or https)')
          .option('--description <text>', 'a note for people')
          .option('--inactive', 'create it turned off')
          .option('--signing-secret-stdin', 'read a signing secret (16-256 characters) from stdin; it is never shown'),
        false,
      ),
      'rule',
      false,
    ),
    false,
  ).action(async (flags: RuleFlags, cmd: Command) => {
    const out = ctx.output(cmd);
    oneStdinInput(flags);
    const body: RuleCreateBody = {
      source: flags.source!,
      target_url: flags.target!,
      active: !flags.inactive,
      ...ruleOptionsBody(flags),
    };
    if (flags.name !== undefined) body.name = flags.name;
    if (flags.description !== undefined) body.description = flags.description;
    await addFilterAndTransform(flags, ctx, body);
    await secretsFromStdin(flags, ctx, body);
    const { client } = await ctx.connect(cmd);
    const rule = await dataOf(client.POST('/rules', { body }));
    out.result(rule, (r) => `Created rule ${r.id}.\n${ruleDetail(r, out.colors)}`);
  });
  withExamples(
    create,
    'relay rules create --source github --target https://ci.example.com/hooks',
    'relay rules create --name stripe-eu --source stripe --target https://eu.example.com/stripe',
    'relay rules create --source stripe --target https://shop.example.com/stripe --signing-secret-stdin < secret.txt',
    'relay rules create --source jira --target https://x.example.com --forward-header authorization --inactive',
    'relay rules create --source github --target https://ci.example.com --dedup github --verify github ' +
      '--verification-secret-stdin < github-secret.txt',
    'relay rules create --source shop --target https://x.example.com --ordering pointer:/customer_id ' +
      '--max-attempts 5 --backoff-cap 1h --set-header x-team=payments --remove-header cookie',
    'relay rules create --source shop --target https://fraud.example.com --filter \'{"body": {"total": {"$gt": 100}}}\'',
    'relay rules create --source github --target https://chat.example.com/in --transform @github-to-chat.js ' +
      '--rate-limit 5/second --burst 10 --max-concurrency 2',
  );
}

function updateBody(flags: RuleFlags): RuleUpdateBody {
  if (flags.description !== undefined && flags.clearDescription)
    throw new UsageError('give --description or --clear-description, not both');
  if (flags.signingSecretStdin && flags.clearSigningSecret)
    throw new UsageError('give --signing-secret-stdin or --clear-signing-secret, not both');
  const body: RuleUpdateBody = {};
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.source !== undefined) body.source = flags.source;
  if (flags.target !== undefined) body.target_url = flags.target;
  if (flags.description !== undefined) body.description = flags.description;
  if (flags.clearDescription) body.description = null;
  if (flags.clearSigningSecret) body.signing_secret = null;
  return body;
}

function registerUpdate(rules: Command, ctx: CommandContext) {
  const update = addRuleOptionFlags(
    addTransformFlags(
      addRuleFilterFlags(
        rules
          .command('update <id>')
          .description('Change a rule; only the fields given change (enable/disable turn it on and off)')
          .option('--name <name>', 'a new name (unique in the organization)')
          .option('--source <source>', 'a new source')
          .option('--target <url>', 'a new target URL')
          .option('--description <text>', 'a new description')
          .option('--clear-description', 'remove the description')
          .option('--signing-secret-stdin', 'replace the signing secret with one read from stdin (see rotate-secret)')
          .option('--clear-signing-secret', 'stop signing deliveries'),
        true,
      ),
      'rule',
      true,
    ),
    true,
  ).action(async (id: string, flags: RuleFlags, cmd: Command) => {
    const out = ctx.output(cmd);
    oneStdinInput(flags);
    const body = updateBody(flags);
    // A flag changing part of an option (--dedup-window alone, --max-attempts…) keeps the rest as stored.
    const partial = needsStoredRule(flags);
    if (!partial) Object.assign(body, ruleOptionsBody(flags));
    await addFilterAndTransform(flags, ctx, body);
    const secret = flags.signingSecretStdin || flags.verificationSecretStdin;
    if (!partial && !secret && Object.keys(body).length === 0)
      throw new UsageError('nothing to change: give at least one option');
    const { client } = await ctx.connect(cmd);
    if (partial) Object.assign(body, ruleOptionsBody(flags, await dataOf(client.GET('/rules/{id}', byId(id)))));
    await secretsFromStdin(flags, ctx, body);
    const rule = await dataOf(client.PATCH('/rules/{id}', { ...byId(id), body }));
    out.result(rule, (r) => `Updated rule ${r.id}.\n${ruleDetail(r, out.colors)}`);
  });
  withExamples(
    update,
    'relay rules update 0192f0c4-… --target https://new.example.com/hooks',
    'relay rules update 0192f0c4-… --name github-ci',
    'relay rules update 0192f0c4-… --clear-description --clear-signing-secret',
    'relay rules update 0192f0c4-… --dedup-window 48h --unhealthy-after 2d --no-ordering',
    'relay rules update 0192f0c4-… --no-verify --no-delivery-policy --clear-set-headers',
    'relay rules update 0192f0c4-… --filter @filter.json',
    'relay rules update 0192f0c4-… --filter-cel \'body.ref == "refs/heads/main"\'',
    'relay rules update 0192f0c4-… --no-filter',
    'relay rules update 0192f0c4-… --transform - < transform.js',
    'relay rules update 0192f0c4-… --burst 20 --no-max-concurrency --no-transform',
  );
}

function registerRotate(rules: Command, ctx: CommandContext) {
  const rotate = rules
    .command('rotate-secret <id>')
    .description('Rotate the signing secret (read from stdin); the old one keeps signing for a while')
    .option('--keep-previous <seconds>', 'how long the replaced secret also signs (default 86400; 0: not at all)')
    .action(async (id: string, flags: { keepPrevious?: string }, cmd: Command) => {
      const out = ctx.output(cmd);
      const keep =
        flags.keepPrevious === undefined ? 86_400 : flags.keepPrevious === '0' ? 0 : positiveInt(flags.keepPrevious);
      const secret = await readSecretFromStdin(ctx.deps.stdin, 'new signing secret');
      const { client } = await ctx.connect(cmd);
      const rule = await dataOf(
        client.POST('/rules/{id}/secret/rotate', {
          params: { path: { id } },
          body: { signing_secret: secret, previous_secret_valid_for_seconds: keep },
        }),
      );
      out.result(rule, (r) => `Rotated the signing secret of rule ${r.id}.\n${ruleDetail(r, out.colors)}`);
    });
  withExamples(rotate, 'relay rules rotate-secret 0192f0c4-… < new-secret.txt --keep-previous 3600');
}

export function registerRuleWriteCommands(rules: Command, ctx: CommandContext): void {
  registerCreate(rules, ctx);
  registerUpdate(rules, ctx);
  registerRotate(rules, ctx);
  registerRotateVerification(rules, ctx);
  registerResume(rules, ctx);
}
