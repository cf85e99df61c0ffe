import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { confirmed } from '../admin-kit';
import { withExamples } from '../command-kit';
import { registerDestinationsCommands } from './destinations-commands';
import { ruleDetail, rulesTable } from './rule-views';
import { registerBlocked } from './rules-blocked-command';
import { registerDryRun } from './rules-dry-run-command';
import { registerTransformTest } from './rules-transform-test-command';
import { registerRuleWriteCommands } from './rules-write-commands';

const byId = (id: string) => ({ params: { path: { id } } });

function registerReads(rules: Command, ctx: CommandContext) {
  const list = rules
    .command('list')
    .alias('ls')
    .description("The organization's rules: which source goes to which target")
    .action(async (_: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const answer = await dataOf(client.GET('/rules'));
      out.result(answer, (a) => rulesTable(a.rules, out.colors));
    });
  withExamples(list, 'relay rules list', 'relay rules list --json | jq -r ".rules[].source"');

  const show = rules
    .command('show <id>')
    .description('One rule in full')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      out.result(await dataOf(client.GET('/rules/{id}', byId(id))), (rule) => ruleDetail(rule, out.colors));
    });
  withExamples(show, 'relay rules show 0192f0c4-…', 'relay rules show 0192f0c4-… --json');
}

function registerToggles(rules: Command, ctx: CommandContext) {
  for (const [name, active] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    const toggle = rules
      .command(`${name} <id>`)
      .description(
        active
          ? 'Turn a rule on (at most one active rule per source)'
          : "Turn a rule off: its source's events go to the default target",
      )
      .action(async (id: string, _: unknown, cmd: Command) => {
        const out = ctx.output(cmd);
        const { client } = await ctx.connect(cmd);
        const rule = await dataOf(client.PATCH('/rules/{id}', { ...byId(id), body: { active } }));
        out.result(rule, (r) => `Rule ${r.name} (${r.id}) is ${active ? 'enabled' : 'disabled'}.`);
      });
    withExamples(toggle, `relay rules ${name} 0192f0c4-…`);
  }
}

function registerDelete(rules: Command, ctx: CommandContext) {
  const remove = rules
    .command('delete <id>')
    .alias('rm')
    .description('Delete a rule and its hooks (asks first unless --yes)')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      // Read it first: the question names the source, and a wrong id fails before anything is asked.
      const rule = await dataOf(client.GET('/rules/{id}', byId(id)));
      if (
        !(await confirmed(
          out,
          `Delete rule ${rule.name} (${rule.id}, ${rule.source} → ${rule.target_url}) and its hooks?`,
        ))
      )
        return;
      await dataOf(client.DELETE('/rules/{id}', byId(id)));
      out.result({ id: rule.id, deleted: true }, () => `Deleted rule ${rule.name} (${rule.id}).`);
    });
  withExamples(remove, 'relay rules delete 0192f0c4-…', 'relay rules delete 0192f0c4-… --yes');
}

export function registerRulesCommands(program: Command, ctx: CommandContext): void {
  const rules = program.command('rules').description('Rules: where the webhooks of each source are delivered');
  withExamples(
    rules,
    'relay rules list',
    'relay rules create --source github --target https://ci.example.com/hooks',
    'relay rules disable 0192f0c4-…',
  );
  registerReads(rules, ctx);
  registerBlocked(rules, ctx);
  registerDryRun(rules, ctx);
  registerTransformTest(rules, ctx);
  registerRuleWriteCommands(rules, ctx);
  registerToggles(rules, ctx);
  registerDelete(rules, ctx);
  registerDestinationsCommands(rules, ctx);
}
