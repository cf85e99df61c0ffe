import { createRelayClient, type RelayClient } from '@relay/client';
import type { Command } from 'commander';
import type { CliEnv } from './cli-env';
import { createConfigStore, DEFAULT_PROFILE, type ConfigStore, type Profile } from './config/config-store';
import { CliError } from './errors';
import { createOutput, type Output, type Streams } from './output/output';

/** What the CLI gets from its process (main.ts) or from a test. */
export interface CliDeps extends Streams {
  env: CliEnv;
  fetch: typeof fetch;
  /** The clock, for session expiry (tests move it). */
  now?: () => Date;
  /**
   * Called before the terminal UI loads: ink renders nothing until exit when it believes it runs in CI (it reads
   * `CI` once, when it loads), and `relay tui` only runs on a real terminal, where the screen must update live.
   */
  beforeLiveTerminal?: () => void;
  /**
   * The process environment as it is, for the `${env:NAME}` secret references of `relay apply` only (any name a
   * configuration file chooses, so it cannot be part of the validated settings of cli-env.ts).
   */
  variables?: Readonly<Record<string, string | undefined>>;
}

/** The options every command takes (declared once on the program). */
export interface GlobalOptions {
  url?: string;
  token?: string;
  profile?: string;
  json: boolean;
  quiet: boolean;
  yes: boolean;
  color: boolean;
}

/** A signed-in connection to a relay: the typed client and what it was built from. */
export interface Connection {
  baseUrl: string;
  client: RelayClient;
  /** The headers that authenticate a call (for requests the typed client does not make, such as streams). */
  headers: Record<string, string>;
  profileName: string;
  profile: Profile | undefined;
  fetch: typeof fetch;
}

export interface CommandContext {
  deps: CliDeps;
  store: ConfigStore;
  options(cmd: Command): GlobalOptions;
  output(cmd: Command): Output;
  /** The profile name in effect: --profile, else RELAY_PROFILE, else the config's current profile, else "default". */
  profileName(cmd: Command): Promise<string>;
  /** The relay URL of the last connection (so an unreachable relay is named in the error). */
  readonly baseUrl: string | undefined;
  /** The relay URL and credentials in effect: flags > RELAY_URL/RELAY_TOKEN > the profile. */
  connect(cmd: Command, options?: { anonymous?: boolean }): Promise<Connection>;
}

export const DEFAULT_URL = 'http://localhost:3000';
const trimUrl = (url: string) => url.replace(/\/+$/, '');

export function createCommandContext(deps: CliDeps): CommandContext {
  const store = createConfigStore(deps.env.configFile);
  const now = deps.now ?? (() => new Date());
  const options = (cmd: Command) => cmd.optsWithGlobals<GlobalOptions>();
  const profileName = async (cmd: Command) =>
    options(cmd).profile ?? deps.env.profile ?? (await store.read()).current_profile ?? DEFAULT_PROFILE;
  let lastBaseUrl: string | undefined;
  return {
    deps,
    store,
    options,
    profileName,
    get baseUrl() {
      return lastBaseUrl;
    },
    output(cmd) {
      const o = options(cmd);
      return createOutput(deps, {
        json: Boolean(o.json),
        quiet: Boolean(o.quiet),
        yes: Boolean(o.yes),
        noColor: deps.env.noColor || o.color === false,
        forceColor: deps.env.forceColor,
        ci: deps.env.ci,
      });
    },
    async connect(cmd, { anonymous = false } = {}) {
      const o = options(cmd);
      const name = await profileName(cmd);
      const profile = (await store.read()).profiles[name];
      const baseUrl = trimUrl(o.url ?? deps.env.url ?? profile?.url ?? DEFAULT_URL);
      // A profile's credential is sent only to the relay it was issued by, never to another --url.
      lastBaseUrl = baseUrl;
      const own = profile && trimUrl(profile.url) === baseUrl ? profile : undefined;
      const headers: Record<string, string> = {};
      const token = o.token ?? deps.env.token ?? own?.token;
      if (token) headers.authorization = `Bearer ${token}`;
      else if (own?.session_cookie) {
        if (own.session_expires_at && new Date(own.session_expires_at) <= now())
          throw new CliError(
            `the session of profile "${name}" expired at ${own.session_expires_at}: log in again (relay login)`,
          );
        headers.cookie = own.session_cookie;
        // The relay checks the origin of cookie-authenticated writes (CSRF); the CLI is its own origin.
        headers.origin = baseUrl;
      } else if (!anonymous)
        throw new CliError(
          `not logged in to ${baseUrl}: run \`relay login\`${name === DEFAULT_PROFILE ? '' : ` --profile ${name}`}, ` +
            'or set RELAY_TOKEN',
        );
      const client = createRelayClient({ baseUrl, fetch: deps.fetch, headers });
      return { baseUrl, client, headers, profileName: name, profile: own, fetch: deps.fetch };
    },
  };
}
