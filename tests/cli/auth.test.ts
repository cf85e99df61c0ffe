import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '@relay/test-support';
import { seedUser } from '../e2e/harness';
import { PASSWORD, startCliRelay, type CliRelay } from './cli-harness';

const configOf = (home: string) => path.join(home, '.config', 'webhook-relay', 'config.json');

describe('relay login, whoami, logout', () => {
  let relay: CliRelay;
  beforeAll(async () => {
    relay = await startCliRelay();
  });
  afterAll(() => relay.close());

  it('stores a personal token with mode 0600 and never the password; whoami shows the user', async () => {
    await seedUser(relay.pipeline, { username: 'ada', role: 'admin', password: PASSWORD });
    const home = relay.newHome();
    const login = await relay.run(home, ['login', '--url', relay.url, '--username', 'ada', '--password', PASSWORD]);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('Logged in');
    const file = configOf(home);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(PASSWORD);
    const config = JSON.parse(text);
    expect(config.current_profile).toBe('default');
    expect(config.profiles.default).toMatchObject({ url: relay.url, username: 'ada', kind: 'user' });
    expect(config.profiles.default.token).toMatch(/^ts_/);
    expect(config.profiles.default.session_cookie).toBeUndefined();

    const whoami = await relay.run(home, ['whoami', '--json']);
    expect(whoami.code).toBe(0);
    const me = JSON.parse(whoami.stdout);
    expect(me).toMatchObject({ mechanism: 'token', kind: 'user', role: 'admin', user: { username: 'ada' } });
  });

  it('logout revokes the token: it no longer works, and the profile forgets it', async () => {
    const home = await relay.loginAs('viewer');
    const token = JSON.parse(readFileSync(configOf(home), 'utf8')).profiles.default.token as string;
    const logout = await relay.run(home, ['logout']);
    expect(logout.code).toBe(0);
    expect(JSON.parse(readFileSync(configOf(home), 'utf8')).profiles.default.token).toBeUndefined();
    const me = await relay.pipeline.http.get('/api/auth/me').set('authorization', `Bearer ${token}`);
    expect(me.status).toBe(401);
    const after = await relay.run(home, ['whoami']);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/not logged in .*relay login/);
  });

  it('refuses a wrong password with the API code and exit 1, and a missing password without a terminal with 2', async () => {
    await seedUser(relay.pipeline, { username: 'bob', role: 'viewer', password: PASSWORD });
    const home = relay.newHome();
    const wrong = await relay.run(home, ['login', '--url', relay.url, '--username', 'bob', '--password', 'nope-nope']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: .*\[unauthenticated\]$/m);
    const missing = await relay.run(home, ['login', '--url', relay.url, '--username', 'bob']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --password');
  });

  it('takes flags over RELAY_URL/RELAY_TOKEN over the profile, and sends no profile token to another URL', async () => {
    const home = await relay.loginAs('admin', 'grace');
    const other = await relay.run(home, ['whoami', '--url', 'http://127.0.0.1:9']);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('not logged in to http://127.0.0.1:9');
    const closed = await freePort(); // nothing listens there
    const unreachable = await relay.run(home, ['whoami'], {
      env: { RELAY_URL: `http://127.0.0.1:${closed}`, RELAY_TOKEN: 'ts_x' },
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      new RegExp(`^error: cannot reach the relay at http://127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\)$`, 'm'),
    );
    const viewerHome = await relay.loginAs('viewer', 'vic');
    const viewerToken = JSON.parse(readFileSync(configOf(viewerHome), 'utf8')).profiles.default.token as string;
    const byEnv = await relay.run(home, ['whoami', '--json'], { env: { RELAY_TOKEN: viewerToken } });
    expect(JSON.parse(byEnv.stdout).user.username).toBe('vic');
    const byFlag = await relay.run(home, ['whoami', '--json', '--token', 'ts_bogus'], {
      env: { RELAY_TOKEN: viewerToken },
    });
    expect(byFlag.code).toBe(1);
    const byProfile = await relay.run(home, ['whoami', '--json']);
    expect(JSON.parse(byProfile.stdout).user.username).toBe('grace');
  });

  it('treats an empty RELAY_URL or RELAY_TOKEN as unset: login --url works and whoami uses the profile', async () => {
    await seedUser(relay.pipeline, { username: 'eve', role: 'viewer', password: PASSWORD });
    const home = relay.newHome();
    const env = { RELAY_URL: '', RELAY_TOKEN: '', RELAY_PROFILE: '' };
    const login = await relay.run(home, ['login', '--url', relay.url, '--username', 'eve', '--password-stdin'], {
      env,
      input: PASSWORD,
    });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    const whoami = await relay.run(home, ['whoami', '--json'], { env });
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.stdout).user.username).toBe('eve');
  });

  it('tightens a config folder that already existed with a wider mode to 0700', async () => {
    await seedUser(relay.pipeline, { username: 'wide', role: 'viewer', password: PASSWORD });
    const home = relay.newHome();
    const folder = path.dirname(configOf(home));
    mkdirSync(folder, { recursive: true, mode: 0o755 });
    chmodSync(folder, 0o755);
    const login = await relay.run(home, ['login', '--url', relay.url, '--username', 'wide', '--password-stdin'], {
      input: PASSWORD,
    });
    expect(login.code).toBe(0);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(configOf(home)).mode & 0o777).toBe(0o600);
  });

  it('keeps named profiles apart', async () => {
    await seedUser(relay.pipeline, { username: 'pat', role: 'viewer', password: PASSWORD });
    const home = await relay.loginAs('admin', 'main-admin');
    const second = await relay.run(
      home,
      ['--profile', 'second', 'login', '--url', relay.url, '--username', 'pat', '--password-stdin'],
      { input: PASSWORD },
    );
    expect(second.code).toBe(0);
    expect(JSON.parse((await relay.run(home, ['whoami', '--json', '-p', 'default'])).stdout).user.username).toBe(
      'main-admin',
    );
    expect(JSON.parse((await relay.run(home, ['whoami', '--json'])).stdout).user.username).toBe('pat');
  });
});
