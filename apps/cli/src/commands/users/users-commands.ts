import { dataOf, type AnswerOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { CliError } from '../../errors';
import { formatTable } from '../../output/table';
import { oneOf, readSecretFromStdin } from '../admin-kit';
import { ago, withExamples } from '../command-kit';
import { registerUserLifecycleCommands } from './users-lifecycle-commands';

type User = AnswerOf<'/api/users', 'get'>['users'][number];
const ROLES = ['viewer', 'admin'] as const;
const role = oneOf(ROLES, 'the role');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const usersTable = (users: readonly User[]) =>
  formatTable(users, [
    { header: 'id', value: (u) => u.id },
    { header: 'username', value: (u) => u.username },
    { header: 'email', value: (u) => u.email },
    { header: 'role', value: (u) => u.role },
    { header: 'disabled', value: (u) => (u.disabled ? 'yes' : '') },
    { header: 'created', value: (u) => ago(u.created_at) },
  ]);

interface AddFlags {
  email: string;
  role: (typeof ROLES)[number];
  passwordStdin?: boolean;
}

export function registerUsersCommands(program: Command, ctx: CommandContext): void {
  const users = program.command('users').description("The organization's users and their roles (admins only)");
  withExamples(users, 'relay users list', 'relay users set-role grace admin');

  const list = users
    .command('list')
    .alias('ls')
    .description('Users of the organization')
    .action(async (_: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const { client } = await ctx.connect(cmd);
      out.result(await dataOf(client.GET('/api/users')), (a) => usersTable(a.users));
    });
  withExamples(list, 'relay users list', 'relay users list --json');

  const add = users
    .command('add <username>')
    .description('Add a user; the password is read from stdin (--password-stdin), never from the command line')
    .requiredOption('--email <email>', 'their e-mail address')
    .requiredOption('--password-stdin', 'read their initial password (12+ characters) from stdin')
    .option('--role <role>', 'viewer or admin', role, 'viewer')
    .action(async (username: string, flags: AddFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const password = await readSecretFromStdin(ctx.deps.stdin, 'password');
      const { client } = await ctx.connect(cmd);
      const user = await dataOf(
        client.POST('/api/users', { body: { username, email: flags.email, role: flags.role, password } }),
      );
      out.result(user, (u) => `Added ${u.username} (${u.role}), id ${u.id}.`);
    });
  withExamples(add, 'relay users add grace --email grace@example.com --role admin --password-stdin < pw.txt');

  const setRole = users
    .command('set-role <user> <role>')
    .description("Change a user's role (viewer or admin); the user is an id or a username")
    .action(async (who: string, newRole: string, _: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const wanted = role(newRole);
      const { client } = await ctx.connect(cmd);
      let id = who;
      if (!UUID.test(who)) {
        // The API takes ids; a username is looked up among the organization's users.
        const found = (await dataOf(client.GET('/api/users'))).users.find((u) => u.username === who);
        if (!found) throw new CliError(`no user named "${who}" in this organization`);
        id = found.id;
      }
      const user = await dataOf(
        client.PATCH('/api/users/{id}/role', { params: { path: { id } }, body: { role: wanted } }),
      );
      out.result(user, (u) => `${u.username} is now ${u.role}.`);
    });
  withExamples(setRole, 'relay users set-role grace admin', 'relay users set-role 0192f0c4-… viewer');
  registerUserLifecycleCommands(users, ctx);
}
