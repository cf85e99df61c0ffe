import { dataOf, type AnswerOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext } from '../../context';
import { UsageError } from '../../errors';
import { formatFields, readSecretFromStdin } from '../admin-kit';
import { withExamples } from '../command-kit';

type Notifications = AnswerOf<'/api/organization/notifications', 'get'>;

const notificationsText = (n: Notifications) =>
  formatFields([
    ['notification URL', n.url ?? '(none: no notices)'],
    ['secret', n.has_secret ? 'set (write-only)' : 'none (DEFAULT_SIGNING_SECRET if the install has one)'],
  ]);

interface SetOptions {
  secretStdin?: boolean;
  clearSecret?: boolean;
}

function registerNotifications(org: Command, ctx: CommandContext) {
  const notifications = org
    .command('notifications')
    .description(
      'Where notices go (rule.unhealthy, destination.unhealthy, the events.failed digest), signed like deliveries',
    );
  withExamples(
    notifications,
    'relay org notifications show',
    'relay org notifications set https://ops.example.com/relay --secret-stdin < notice-secret.txt',
    'relay org notifications clear',
  );

  const show = notifications
    .command('show')
    .description('The notification URL and whether notices have a secret of their own');
  withExamples(show, 'relay org notifications show', 'relay org notifications show --json');
  show.action(async (_: unknown, cmd: Command) => {
    const { client } = await ctx.connect(cmd);
    ctx.output(cmd).result(await dataOf(client.GET('/api/organization/notifications')), notificationsText);
  });

  const set = notifications
    // The URL is an argument: --url is the program's own option (the relay to talk to).
    .command('set <url>')
    .description('Set the notification URL (http/https), and optionally its secret (kept when omitted)')
    // Like rule secrets, never on the command line (shell history, process lists): from stdin.
    .option('--secret-stdin', 'read the signing secret (16-256 characters) from stdin; it is never shown')
    .option('--clear-secret', 'sign with the install default (DEFAULT_SIGNING_SECRET) or not at all');
  withExamples(
    set,
    'relay org notifications set https://ops.example.com/relay',
    'relay org notifications set https://ops.example.com/relay --secret-stdin < notice-secret.txt',
  );
  set.action(async (url: string, options: SetOptions, cmd: Command) => {
    if (options.secretStdin && options.clearSecret) {
      throw new UsageError('give --secret-stdin or --clear-secret, not both');
    }
    const secret = options.clearSecret
      ? null
      : options.secretStdin
        ? await readSecretFromStdin(ctx.deps.stdin, 'notification secret')
        : undefined;
    const { client } = await ctx.connect(cmd);
    const body = { url, ...(secret !== undefined ? { secret } : {}) };
    const saved = await dataOf(client.PUT('/api/organization/notifications', { body }));
    ctx.output(cmd).result(saved, (n) => `Notifications set.\n${notificationsText(n)}`);
  });

  const clear = notifications.command('clear').description('No more notices: forgets the URL and its secret');
  withExamples(clear, 'relay org notifications clear');
  clear.action(async (_: unknown, cmd: Command) => {
    const { client } = await ctx.connect(cmd);
    const saved = await dataOf(client.PUT('/api/organization/notifications', { body: { url: null } }));
    ctx.output(cmd).result(saved, (n) => `Notifications off.\n${notificationsText(n)}`);
  });
}

/** `relay org …`: the organization's own settings (admins). */
export function registerOrgCommands(program: Command, ctx: CommandContext): void {
  const org = program.command('org').description("The organization's own settings: notifications");
  withExamples(org, 'relay org notifications show');
  registerNotifications(org, ctx);
}
