import { ProblemError } from '@relay/client';
import { describe, expect, it } from 'vitest';
import { parseCliEnv } from './cli-env';
import { describeError, UsageError } from './errors';

describe('describeError', () => {
  it('turns a problem document into one line with its detail, field errors and code', () => {
    const problem = new ProblemError({
      title: 'Invalid request',
      status: 400,
      code: 'validation_failed',
      detail: 'The body is invalid.',
      errors: [{ field: 'url', message: 'Invalid URL' }],
    });
    expect(describeError(problem)).toEqual({
      message: 'The body is invalid. (url: Invalid URL) [validation_failed]',
      exitCode: 1,
    });
  });

  it('names the relay that cannot be reached, and keeps usage errors at exit 2', () => {
    const refused = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    expect(describeError(refused, 'http://127.0.0.1:9').message).toBe(
      'cannot reach the relay at http://127.0.0.1:9 (ECONNREFUSED)',
    );
    const badPort = new TypeError('fetch failed', { cause: new Error('bad port') });
    expect(describeError(badPort, 'http://localhost:1').message).toBe(
      'cannot reach the relay at http://localhost:1 (bad port)',
    );
    expect(describeError(new UsageError('missing --id')).exitCode).toBe(2);
  });
});

describe('parseCliEnv', () => {
  it('finds the config under XDG_CONFIG_HOME, else ~/.config, and reads NO_COLOR, FORCE_COLOR and CI', () => {
    expect(parseCliEnv({ XDG_CONFIG_HOME: '/x', HOME: '/h' }).configFile).toBe('/x/webhook-relay/config.json');
    expect(parseCliEnv({ HOME: '/h' }).configFile).toBe('/h/.config/webhook-relay/config.json');
    const env = parseCliEnv({ HOME: '/h', NO_COLOR: '1', FORCE_COLOR: '0', CI: 'true' });
    expect(env).toMatchObject({ noColor: true, forceColor: false, ci: true });
    expect(parseCliEnv({ HOME: '/h', NO_COLOR: '', CI: '0' })).toMatchObject({ noColor: false, ci: false });
  });

  it('treats an empty variable as unset, everywhere it reads one', () => {
    const empty = { RELAY_URL: '', RELAY_TOKEN: '', RELAY_PROFILE: '', XDG_CONFIG_HOME: '', FORCE_COLOR: '', CI: '' };
    expect(parseCliEnv({ HOME: '/h', ...empty })).toEqual({
      url: undefined,
      token: undefined,
      profile: undefined,
      configFile: '/h/.config/webhook-relay/config.json',
      noColor: false,
      forceColor: false,
      ci: false,
    });
  });

  it('refuses a RELAY_URL that is not http(s)', () => {
    expect(() => parseCliEnv({ HOME: '/h', RELAY_URL: 'ftp://x' })).toThrow('RELAY_URL');
  });
});
