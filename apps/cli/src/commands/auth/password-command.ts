import { hostname } from 'node:os';
import { createRelayClient, dataOf } from '@relay/client';
import type { Command } from 'commander';
import type { CommandContext, Connection } from '../../context';
import { CliError, UsageError } from '../../errors';
import { withExamples } from '../command-kit';
import { sessionCookieOf } from './session-cookie';

interface PasswordFlags {
  stdin?: boolean;
}

/** The current and the new password: two lines of stdin (--stdin), else asked on a terminal. */
async function passwordsOf(ctx: CommandContext, flags: PasswordFlags): Promise<[string, string]> {
  if (flags.stdin) {
    let text = '';
    for await (const chunk of ctx.deps.stdin) text += String(chunk);
    const [current = '', next = ''] = text.split(/\r?\n/);
    if (!current || !next) throw new UsageError('expected two lines on stdin: the current password, then the new one');
    return [current, next];
  }
  if (!ctx.deps.stdin.isTTY) throw new UsageError('stdin is not a terminal: pass --stdin with two lines');
  const { password } = await import('@inquirer/prompts');
  const io = { input: ctx.deps.stdin, output: ctx.deps.stderr };
  const current = await password({ message: 'Current password', mask: '*' }, io);
  const next = await password({ message: 'New password', mask: '*' }, io);
  if ((await password({ message: 'New password again', mask: '*' }, io)) !== next)
    throw new UsageError('the two new passwords differ; nothing was changed');
  return [current, next];
}

/**
 * The change ended every personal token of the user, the profile's too: a profile made by `relay login` signs in
 * again with the new password and stores a new token, as login does (never the password).
 */
async function renewToken(ctx: CommandContext, conn: Connection, password: string): Promise<boolean> {
  const profile = conn.profile;
  if (!profile?.token_id || !profile.username) return false;
  const url = conn.baseUrl;
  const anonymous = createRelayClient({ baseUrl: url, fetch: conn.fetch, headers: { origin: url } });
  const answer = await anonymous.POST('/api/auth/login', { body: { username: profile.username, password } });
  await dataOf(Promise.resolve(answer));
  const session = sessionCookieOf(answer.response.headers.getSetCookie(), new Date());
  if (!session) throw new CliError('the relay answered the login without a session cookie; run `relay login`');
  const client = createRelayClient({
    baseUrl: url,
    fetch: conn.fetch,
    headers: { cookie: session.cookie, origin: url },
  });
  const created = await dataOf(
    client.POST('/api/auth/tokens', { body: { name: `relay CLI on ${hostname()}`.slice(0, 100) } }),
  );
  await client.POST('/api/auth/logout').catch(() => undefined);
  if (!created.token) throw new CliError('the relay created the token without showing it; run `relay login`');
  const config = await ctx.store.read();
  config.profiles[conn.profileName] = { ...profile, token: created.token, token_id: created.id };
  await ctx.store.write(config);
  return true;
}

export function registerPasswordCommand(program: Command, ctx: CommandContext): void {
  const command = program
    .command('password')
    .description('Change your password (a user or a platform operator); your other sessions and tokens end')
    .option('--stdin', 'read the current password, then the new one, as two lines of stdin')
    .action(async (flags: PasswordFlags, cmd: Command) => {
      const out = ctx.output(cmd);
      const conn = await ctx.connect(cmd);
      const [current, next] = await passwordsOf(ctx, flags);
      const body = { current_password: current, new_password: next };
      if (conn.profile?.kind === 'operator' && !conn.headers.authorization) {
        const answer = await conn.client.POST('/api/platform/password', { body });
        await dataOf(Promise.resolve(answer));
        // The relay renewed this session (a new cookie); the old cookie is as dead as the other sessions.
        const session = sessionCookieOf(answer.response.headers.getSetCookie(), new Date());
        if (session) {
          const config = await ctx.store.read();
          const expires = session.expiresAt ? { session_expires_at: session.expiresAt } : {};
          config.profiles[conn.profileName] = { ...conn.profile, session_cookie: session.cookie, ...expires };
          await ctx.store.write(config);
        }
        out.result({ changed: true, kind: 'operator' }, () => 'Password changed; your other sessions ended.');
        return;
      }
      await dataOf(conn.client.POST('/api/auth/password', { body }));
      const renewed = await renewToken(ctx, conn, next);
      out.result({ changed: true, kind: 'user', token_renewed: renewed }, () =>
        renewed
          ? 'Password changed; your other sessions and personal tokens ended (this profile has a new token).'
          : 'Password changed; your other sessions and personal tokens ended (log in again where you used them).',
      );
    });
  withExamples(command, 'relay password', 'printf \'%s\\n%s\\n\' "$OLD" "$NEW" | relay password --stdin');
}
