import { hostname } from 'node:os';
import { createRelayClient, dataOf } from '@relay/client';
import type { Command } from 'commander';
import { DEFAULT_URL, type CommandContext } from '../../context';
import { CliError, describeError, UsageError } from '../../errors';
import type { Profile } from '../../config/config-store';
import { withExamples } from '../command-kit';
import { sessionCookieOf } from './session-cookie';

// GET /api/auth/me answers one of three shapes (a user or key, an operator, nobody); an operator has neither a
// user nor an organization.
interface MeParts {
  user?: { username: string } | null;
  organization?: { id: string; slug?: string } | null;
}
const userOf = (me: object) => (me as MeParts).user ?? null;
const organizationOf = (me: object) => (me as MeParts).organization ?? null;
const slugOf = (me: object) => organizationOf(me)?.slug;

interface LoginOptions {
  username?: string;
  password?: string;
  passwordStdin?: boolean;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text.replace(/\r?\n$/, '');
}

/** Asks for what the flags did not give, on a terminal only (a script gets a usage error instead). */
async function ask(ctx: CommandContext, what: 'url' | 'username' | 'password', fallback?: string): Promise<string> {
  if (!ctx.deps.stdin.isTTY) throw new UsageError(`missing --${what} (stdin is not a terminal, so nothing is asked)`);
  const prompts = await import('@inquirer/prompts');
  const io = { input: ctx.deps.stdin, output: ctx.deps.stderr };
  if (what === 'password') return prompts.password({ message: 'Password', mask: '*' }, io);
  const message = what === 'url' ? 'Relay URL' : 'Username';
  return prompts.input({ message, ...(fallback ? { default: fallback } : {}), required: true }, io);
}

async function saveProfile(ctx: CommandContext, name: string, profile: Profile) {
  const config = await ctx.store.read();
  config.profiles[name] = profile;
  config.current_profile = name;
  await ctx.store.write(config);
}

function registerLogin(program: Command, ctx: CommandContext) {
  const login = program
    .command('login')
    .description(
      'Sign in and store a personal token in the profile (never the password); operators store their session',
    )
    .option('--username <name>', 'your username (asked when missing)')
    .option('--password <password>', 'your password (asked when missing; prefer --password-stdin in scripts)')
    .option('--password-stdin', 'read the password from stdin')
    .action(async (opts: LoginOptions, cmd: Command) => {
      const o = ctx.options(cmd);
      const out = ctx.output(cmd);
      const name = await ctx.profileName(cmd);
      const existing = (await ctx.store.read()).profiles[name];
      const url = (o.url ?? ctx.deps.env.url ?? existing?.url ?? (await ask(ctx, 'url', DEFAULT_URL))).replace(
        /\/+$/,
        '',
      );
      const now = ctx.deps.now?.() ?? new Date();
      const token = o.token ?? ctx.deps.env.token;
      if (token) {
        // A token made elsewhere (an API key, a token from the dashboard): checked, then stored as given.
        const client = createRelayClient({
          baseUrl: url,
          fetch: ctx.deps.fetch,
          headers: { authorization: `Bearer ${token}` },
        });
        const me = await dataOf(client.GET('/api/auth/me'));
        if (me.mechanism === 'none') throw new CliError('the relay did not accept the token');
        await saveProfile(ctx, name, {
          url,
          token,
          kind: 'user',
          ...(userOf(me) ? { username: userOf(me)!.username } : {}),
          ...(slugOf(me) ? { organization: slugOf(me) } : {}),
        });
        out.result(
          { profile: name, url, kind: me.kind },
          () => `Logged in to ${url} with the token (profile ${name}).`,
        );
        return;
      }
      const username = opts.username ?? (await ask(ctx, 'username', existing?.username));
      const password = opts.passwordStdin
        ? await readAll(ctx.deps.stdin)
        : (opts.password ?? (await ask(ctx, 'password')));
      const anonymous = createRelayClient({ baseUrl: url, fetch: ctx.deps.fetch, headers: { origin: url } });
      const answer = await anonymous.POST('/api/auth/login', { body: { username, password } });
      // A refused login is not an expired credential: the API's message alone, without "log in again".
      const result = await dataOf(Promise.resolve(answer)).catch((error: unknown) => {
        throw new CliError(describeError(error).message);
      });
      const session = sessionCookieOf(answer.response.headers.getSetCookie(), now);
      if (!session) throw new CliError('the relay answered the login without a session cookie');
      if ('kind' in result && result.kind === 'operator') {
        // The platform API is session-only: keep the session (never the password) and say when it ends.
        await saveProfile(ctx, name, {
          url,
          username,
          kind: 'operator',
          session_cookie: session.cookie,
          ...(session.expiresAt ? { session_expires_at: session.expiresAt } : {}),
        });
        out.result(
          { profile: name, url, kind: 'operator', username, session_expires_at: session.expiresAt ?? null },
          () =>
            `Logged in to ${url} as platform operator ${username} (profile ${name}).\n` +
            `The session expires ${session.expiresAt ? `at ${session.expiresAt}` : 'when the relay ends it'}; ` +
            'then run `relay login` again.',
        );
        return;
      }
      const withSession = createRelayClient({
        baseUrl: url,
        fetch: ctx.deps.fetch,
        headers: { cookie: session.cookie, origin: url },
      });
      const created = await dataOf(
        withSession.POST('/api/auth/tokens', { body: { name: `relay CLI on ${hostname()}`.slice(0, 100) } }),
      );
      const me = await dataOf(withSession.GET('/api/auth/me'));
      // The token replaces the session: end it rather than leave it alive in Redis until it expires.
      await withSession.POST('/api/auth/logout').catch(() => undefined);
      if (!created.token) throw new CliError('the relay created the token without showing it; run `relay login` again');
      await saveProfile(ctx, name, {
        url,
        username,
        kind: 'user',
        token: created.token,
        token_id: created.id,
        ...(slugOf(me) ? { organization: slugOf(me) } : {}),
      });
      out.result(
        { profile: name, url, kind: 'user', username, token_id: created.id, config_file: ctx.store.file },
        () =>
          `Logged in to ${url} as ${username} (profile ${name}).\n` +
          `A personal token "${created.name}" (${created.prefix}…) is stored in ${ctx.store.file}.`,
      );
    });
  withExamples(
    login,
    'relay login --url https://relay.example.com',
    'relay login --url http://localhost:3000 --username admin --password-stdin < password.txt',
    'relay login --url https://relay.example.com --token ts_…   # an API key or token made in the dashboard',
    'relay --profile staging login --url https://staging-relay.example.com',
  );
}

function registerLogout(program: Command, ctx: CommandContext) {
  const logout = program
    .command('logout')
    .description("Revoke the profile's token (or end its session) and forget it")
    .action(async (_: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const name = await ctx.profileName(cmd);
      const config = await ctx.store.read();
      const profile = config.profiles[name];
      if (!profile?.token && !profile?.session_cookie) {
        out.result({ profile: name, logged_out: false }, () => `Profile ${name} is not logged in.`);
        return;
      }
      const connection = await ctx.connect(cmd);
      if (profile.session_cookie) await connection.client.POST('/api/auth/logout');
      else if (profile.token_id) {
        const answer = await connection.client.DELETE('/api/auth/tokens/{id}', {
          params: { path: { id: profile.token_id } },
        });
        // Already revoked or expired (401, 404): forgetting it is all that is left to do.
        if (!answer.response.ok && ![401, 404].includes(answer.response.status)) await dataOf(Promise.resolve(answer));
      }
      const { token: _token, token_id: _id, session_cookie: _cookie, session_expires_at: _exp, ...rest } = profile;
      config.profiles[name] = rest;
      await ctx.store.write(config);
      out.result({ profile: name, logged_out: true, token_revoked: Boolean(profile.token_id) }, () =>
        profile.token_id || profile.session_cookie
          ? `Logged out of ${profile.url} (profile ${name}); the ${profile.token_id ? 'token is revoked' : 'session is ended'}.`
          : `Forgot the token of profile ${name} (it was not made by relay login, so it stays valid).`,
      );
    });
  withExamples(logout, 'relay logout', 'relay --profile staging logout');
}

function registerWhoami(program: Command, ctx: CommandContext) {
  const whoami = program
    .command('whoami')
    .description('Show who the relay takes you for (GET /api/auth/me)')
    .action(async (_: unknown, cmd: Command) => {
      const out = ctx.output(cmd);
      const connection = await ctx.connect(cmd);
      const me = await dataOf(connection.client.GET('/api/auth/me'));
      const expires = connection.profile?.session_expires_at;
      out.result({ ...me, url: connection.baseUrl, profile: connection.profileName }, () => {
        const org = organizationOf(me);
        const orgName = org?.slug ?? org?.id ?? '';
        const user = userOf(me);
        const who =
          'operator' in me
            ? `platform operator ${me.operator.username}`
            : 'kind' in me && me.kind === 'api_key'
              ? `an API key of ${orgName}`
              : user
                ? `${user.username} (${'role' in me ? me.role : ''}) in ${orgName}`
                : 'nobody (no credentials in effect)';
        const lines = [`${who}`, `relay:   ${connection.baseUrl} (profile ${connection.profileName})`];
        lines.push(`via:     ${me.mechanism}`);
        if (me.scopes.length) lines.push(`scopes:  ${me.scopes.join(', ')}`);
        if (expires) lines.push(`session: expires at ${expires}`);
        return lines.join('\n');
      });
    });
  withExamples(whoami, 'relay whoami', 'relay whoami --json');
}

export function registerAuthCommands(program: Command, ctx: CommandContext): void {
  registerLogin(program, ctx);
  registerLogout(program, ctx);
  registerWhoami(program, ctx);
}
