import { dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { confirmed, type BodyOf } from '../admin-kit';
import { collect, withExamples } from '../command-kit';
import { apiKeysTable, shownOnce } from '../credential-views';

interface KeyFlags {
  name: string;
  scope: string[];
  expiresAt?: string;
}

export function registerKeysCommands(program: Command, ctx: CommandContext): void {
  const keys = program.command('keys').description("The organization's API keys (for scripts and services)");
  withExamples(keys, 'relay keys list', 'relay keys create --name ci --scope events:read --scope webhooks:send');

  const list = keys
    .command('list')
    .alias('ls')
    .description('API keys, without their secrets')
    .action(async (_: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      out.result(await dataOf(client.GET('/api/api-keys')), (a) => apiKeysTable(a.api_keys));
    });
  withExamples(list, 'relay keys list', 'relay keys list --json');

  const create = keys
    .command('create')
    .description('Create an API key; its secret is printed once and never again')
    .requiredOption('--name <name>', 'what it is for')
    .requiredOption(
      '--scope <scope>',
      'a scope it may use (repeat or comma-separate): events:read, webhooks:send, rules:read, rules:write, ' +
        'organization:manage',
      collect,
    )
    .option('--expires-at <iso>', 'when it stops working (ISO 8601 with a zone, e.g. 2027-01-01T00:00:00Z)')
    .action(async (flags: KeyFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      // The API checks each scope and names the bad ones (validation_failed).
      const body: BodyOf<'postApiApiKeys'> = {
        name: flags.name,
        scopes: flags.scope as BodyOf<'postApiApiKeys'>['scopes'],
        ...(flags.expiresAt ? { expires_at: flags.expiresAt } : {}),
      };
      const created = await dataOf(client.POST('/api/api-keys', { body }));
      out.note(`Created API key "${created.name}" (${created.id}) with ${created.scopes.join(', ')}.`);
      out.note('Copy the key now: it is not shown again.');
      out.result(created, shownOnce);
    });
  withExamples(
    create,
    'relay keys create --name ci --scope events:read',
    'relay keys create --name sender --scope webhooks:send,events:read --expires-at 2027-01-01T00:00:00Z -q',
  );

  const remove = keys
    .command('delete <id>')
    .alias('rm')
    .description('Delete an API key: it stops working at once (asks first unless --yes)')
    .action(async (id: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      if (!(await confirmed(out, `Delete API key ${id}? Whatever uses it loses access.`))) return;
      await dataOf(client.DELETE('/api/api-keys/{id}', { params: { path: { id } } }));
      out.result({ id, deleted: true }, () => `Deleted API key ${id}.`);
    });
  withExamples(remove, 'relay keys delete 0192f0c4-…', 'relay keys delete 0192f0c4-… --yes');
}
