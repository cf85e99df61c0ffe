import { dataOf, type RelayClient } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { CliError } from '../../errors';
import { confirmed } from '../admin-kit';
import { withExamples } from '../command-kit';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The API takes ids; a username is looked up among the organization's users. */
async function userIdOf(client: RelayClient, who: string): Promise<{ id: string; label: string }> {
  if (UUID.test(who)) return { id: who, label: who };
  const found = (await dataOf(client.GET('/api/users'))).users.find((u) => u.username === who);
  if (!found) throw new CliError(`no user named "${who}" in this organization`);
  return { id: found.id, label: found.username };
}

/** `relay users disable|enable|delete|reset-password <user>`: the account lifecycle, for admins. */
export function registerUserLifecycleCommands(users: Command, ctx: CommandContext): void {
  const disable = users
    .command('disable <user>')
    .description('Disable a user: their sessions, tokens and Basic access are refused at once (id or username)')
    .action(async (who: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const { id } = await userIdOf(client, who);
      const user = await dataOf(client.POST('/api/users/{id}/disable', { params: { path: { id } } }));
      out.result(user, (u) => `${u.username} is disabled.`);
    });
  withExamples(disable, 'relay users disable grace');

  const enable = users
    .command('enable <user>')
    .description('Re-enable a disabled user (id or username)')
    .action(async (who: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const { id } = await userIdOf(client, who);
      const user = await dataOf(client.POST('/api/users/{id}/enable', { params: { path: { id } } }));
      out.result(user, (u) => `${u.username} is enabled.`);
    });
  withExamples(enable, 'relay users enable grace');

  const remove = users
    .command('delete <user>')
    .description('Delete a user (asks first unless --yes); their audit entries are kept')
    .action(async (who: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const { id, label } = await userIdOf(client, who);
      if (!(await confirmed(out, `Delete user ${label}?`))) return;
      await dataOf(client.DELETE('/api/users/{id}', { params: { path: { id } } }));
      out.result({ id, deleted: true }, () => `Deleted ${label}.`);
    });
  withExamples(remove, 'relay users delete grace', 'relay users delete grace --yes');

  const reset = users
    .command('reset-password <user>')
    .description('Issue a one-time set-password code (valid 24 h); the code and link are shown only now')
    .action(async (who: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      const { id, label } = await userIdOf(client, who);
      const issued = await dataOf(client.POST('/api/users/{id}/password-reset', { params: { path: { id } } }));
      out.note(`A one-time code for ${label}, valid until ${issued.expires_at}; it is not shown again.`);
      out.result(issued, (i) => `${i.link}\ncode: ${i.code}`);
    });
  withExamples(reset, 'relay users reset-password grace');
}
