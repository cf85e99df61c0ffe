import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const flag = z
  .string()
  .optional()
  .transform((v) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false');

// Every setting the CLI reads from its environment, validated once (main.ts passes process.env here).
const cliEnvSchema = z.object({
  RELAY_URL: z.url({ protocol: /^https?$/ }).optional(),
  RELAY_TOKEN: z.string().min(1).optional(),
  RELAY_PROFILE: z.string().min(1).optional(),
  XDG_CONFIG_HOME: z.string().min(1).optional(),
  HOME: z.string().min(1).optional(),
  // https://no-color.org: any non-empty value turns colour off; FORCE_COLOR (non-empty) turns it on without a TTY.
  NO_COLOR: z.string().optional(),
  FORCE_COLOR: z.string().optional(),
  CI: flag,
});

export interface CliEnv {
  url: string | undefined;
  token: string | undefined;
  profile: string | undefined;
  /** The config file: `$XDG_CONFIG_HOME/webhook-relay/config.json`, else `~/.config/webhook-relay/config.json`. */
  configFile: string;
  noColor: boolean;
  forceColor: boolean;
  ci: boolean;
}

/**
 * An empty variable is no setting (`RELAY_URL= relay login --url …`, a `.env` line left blank): it reads as
 * unset for every variable here, so it neither fails validation nor hides the next source (a flag, the profile).
 */
const withoutEmpty = (raw: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''));

export function parseCliEnv(raw: Record<string, string | undefined>): CliEnv {
  const parsed = cliEnvSchema.safeParse(withoutEmpty(raw));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`invalid environment variable ${issue.path.join('.')}: ${issue.message}`);
  }
  const env = parsed.data;
  const configHome = env.XDG_CONFIG_HOME ?? path.join(env.HOME ?? homedir(), '.config');
  return {
    url: env.RELAY_URL,
    token: env.RELAY_TOKEN,
    profile: env.RELAY_PROFILE,
    configFile: path.join(configHome, 'webhook-relay', 'config.json'),
    noColor: env.NO_COLOR !== undefined && env.NO_COLOR !== '',
    forceColor: env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false',
    ci: env.CI,
  };
}
