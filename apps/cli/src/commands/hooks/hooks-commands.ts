import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { confirmed, oneOf, type BodyOf } from '../admin-kit';
import { withExamples } from '../command-kit';
import { hooksTable } from '../rules/rule-views';

type HookBody = BodyOf<'postRulesIdHooks'>;
const TRIGGERS = ['provider_succeeded', 'provider_failed'] as const;
// "succeeded"/"failed" are accepted as short forms of the API's names.
const trigger = (value: string) =>
  oneOf(TRIGGERS, '--trigger')(value.startsWith('provider_') ? value : `provider_${value}`);

interface HookFlags {
  name?: string;
  target: string;
  trigger: (typeof TRIGGERS)[number];
  description?: string;
  inactive?: boolean;
}

export function registerHooksCommands(program: Command, ctx: CommandContext): void {
  const hooks = program
    .command('hooks')
    .description("A rule's hooks: follow-up calls after its delivery succeeded or failed");
  withExamples(
    hooks,
    'relay hooks list 0192f0c4-…',
    'relay hooks create 0192f0c4-… --target https://alerts.example.com/relay --trigger failed',
  );

  const list = hooks
    .command('list <rule-id>')
    .alias('ls')
    .description("A rule's hooks")
    .action(async (ruleId: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const answer = await dataOf(client.GET('/rules/{id}/hooks', { params: { path: { id: ruleId } } }));
      out.result(answer, (a) => hooksTable(a.hooks, out.colors));
    });
  withExamples(list, 'relay hooks list 0192f0c4-…', 'relay hooks list 0192f0c4-… --json');

  const create = hooks
    .command('create <rule-id>')
    .description('Attach a hook to a rule (its trigger is fixed once created)')
    .option('--name <name>', 'unique in the rule (default: the trigger, suffixed -2, -3, … if taken)')
    .requiredOption('--target <url>', 'where the hook posts (--url is the relay itself)')
    .option('--trigger <when>', 'succeeded or failed (provider_succeeded, provider_failed)', trigger, 'provider_failed')
    .option('--description <text>', 'a note for people')
    .option('--inactive', 'create it turned off')
    .action(async (ruleId: string, flags: HookFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const body: HookBody = { target_url: flags.target, trigger: flags.trigger, active: !flags.inactive };
      if (flags.name !== undefined) body.name = flags.name;
      if (flags.description !== undefined) body.description = flags.description;
      const hook = await dataOf(client.POST('/rules/{id}/hooks', { params: { path: { id: ruleId } }, body }));
      out.result(
        hook,
        (h) => `Created hook ${h.name} (${h.id}) on rule ${h.rule_id}: on ${h.trigger} → ${h.target_url}.`,
      );
    });
  withExamples(
    create,
    'relay hooks create 0192f0c4-… --target https://alerts.example.com/relay',
    'relay hooks create 0192f0c4-… --name page-on-call --target https://alerts.example.com/page',
    'relay hooks create 0192f0c4-… --target https://audit.example.com/ok --trigger succeeded --description "audit"',
  );

  const remove = hooks
    .command('delete <rule-id> <hook-id>')
    .alias('rm')
    .description('Delete a hook (asks first unless --yes)')
    .action(async (ruleId: string, hookId: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      if (!(await confirmed(out, `Delete hook ${hookId} of rule ${ruleId}?`))) return;
      await dataOf(client.DELETE('/rules/{id}/hooks/{hookId}', { params: { path: { id: ruleId, hookId } } }));
      out.result({ id: hookId, rule_id: ruleId, deleted: true }, () => `Deleted hook ${hookId}.`);
    });
  withExamples(remove, 'relay hooks delete 0192f0c4-… 0192f0c5-… --yes');
}
