import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { confirmed } from '../admin-kit';
import { withExamples } from '../command-kit';
import { shownOnce, tokensTable } from '../credential-views';

export function registerTokensCommands(program: Command, ctx: CommandContext): void {
  const tokens = program.command('tokens').description('Your personal tokens (act as you, with your role)');
  withExamples(tokens, 'relay tokens list', 'relay tokens create --name laptop');

  const list = tokens
    .command('list')
    .alias('ls')
    .description('Your personal tokens, without their secrets')
    .action(async (_: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client, profile } = await ctx.connect(cmd);
      const answer = await dataOf(client.GET('/api/auth/tokens'));
      out.result(answer, (a) => tokensTable(a.tokens));
      if (profile?.token_id && answer.tokens.some((t) => t.id === profile.token_id))
        out.note(`This profile signs in with token ${profile.token_id}.`);
    });
  withExamples(list, 'relay tokens list', 'relay tokens list --json');

  const create = tokens
    .command('create')
    .description('Create a personal token; it is printed once and never again')
    .requiredOption('--name <name>', 'what it is for')
    .option('--expires-at <iso>', 'when it stops working (ISO 8601 with a zone)')
    .action(async (flags: { name: string; expiresAt?: string }, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const body = { name: flags.name, ...(flags.expiresAt ? { expires_at: flags.expiresAt } : {}) };
      const created = await dataOf(client.POST('/api/auth/tokens', { body }));
      out.note(`Created token "${created.name}" (${created.id}). Copy it now: it is not shown again.`);
      out.result(created, shownOnce);
    });
  withExamples(create, 'relay tokens create --name laptop', 'relay tokens create --name ci -q > token.txt');

  const remove = tokens
    .command('delete <id>')
    .alias('rm')
    .description('Revoke one of your tokens (asks first unless --yes)')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client, profile } = await ctx.connect(cmd);
      const own = profile?.token_id === id;
      const question = own
        ? `Revoke token ${id}? It is the one this profile signs in with: you will have to log in again.`
        : `Revoke token ${id}?`;
      if (!(await confirmed(out, question))) return;
      await dataOf(client.DELETE('/api/auth/tokens/{id}', { params: { path: { id } } }));
      out.result({ id, deleted: true }, () => `Revoked token ${id}.`);
    });
  withExamples(remove, 'relay tokens delete 0192f0c4-…', 'relay tokens delete 0192f0c4-… --yes');
}
