import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createOperatorRepository } from '@relay/db';
import { testPasswords } from '../e2e/harness';
import { PASSWORD, startCliRelay, type CliRelay } from './cli-harness';

const NEW_PASSWORD = 'Another-Horse-Battery-7';
const profileOf = (home: string) =>
  JSON.parse(readFileSync(path.join(home, '.config', 'webhook-relay', 'config.json'), 'utf8')).profiles.default as {
    token?: string;
    session_cookie?: string;
  };

describe('relay password and the user lifecycle commands', () => {
  let relay: CliRelay;
  let admin: string;
  beforeAll(async () => {
    relay = await startCliRelay();
    admin = await relay.loginAs('admin', 'root-admin');
  });
  afterAll(() => relay.close());

  const me = (token: string) => relay.pipeline.http.get('/api/auth/me').set('authorization', `Bearer ${token}`);

  it('changes the password from two lines of stdin and keeps the profile signed in with a new token', async () => {
    const home = await relay.loginAs('viewer', 'pia');
    const before = profileOf(home).token!;
    const wrong = await relay.run(home, ['password', '--stdin'], { input: `not-it\n${NEW_PASSWORD}\n` });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/\[wrong_password\]$/m);
    const noTty = await relay.run(home, ['password']);
    expect(noTty.code).toBe(2);

    const changed = await relay.run(home, ['password', '--stdin'], { input: `${PASSWORD}\n${NEW_PASSWORD}\n` });
    expect(changed.code).toBe(0);
    expect(changed.stdout).toContain('Password changed');
    await me(before).expect(401);
    const after = profileOf(home).token!;
    expect(after).not.toBe(before);
    expect((await relay.run(home, ['whoami'])).code).toBe(0);
    expect(JSON.stringify(profileOf(home))).not.toContain(NEW_PASSWORD);
  });

  it("changes an operator's password and keeps the renewed session in the profile", async () => {
    const hash = await testPasswords.hash('operator-password-1');
    await createOperatorRepository(relay.pipeline.store.prisma).bootstrap('cli-op', hash);
    const home = relay.newHome();
    const login = await relay.run(home, ['login', '--url', relay.url, '--username', 'cli-op', '--password-stdin'], {
      input: 'operator-password-1\n',
    });
    expect(login.code).toBe(0);
    const before = profileOf(home).session_cookie!;
    const changed = await relay.run(home, ['password', '--stdin'], { input: `operator-password-1\n${NEW_PASSWORD}\n` });
    expect(changed.code).toBe(0);
    expect(profileOf(home).session_cookie).not.toBe(before);
    expect((await relay.run(home, ['platform', 'overview'])).code).toBe(0);
    await relay.pipeline.http.get('/api/platform/operators').set('cookie', before).expect(401);
  });

  it('disables and re-enables a user by username; the list shows it', async () => {
    const home = await relay.loginAs('viewer', 'dora');
    const disabled = await relay.run(admin, ['users', 'disable', 'dora']);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain('dora is disabled.');
    expect((await relay.run(home, ['whoami'])).code).toBe(1);
    expect((await relay.run(admin, ['users', 'list'])).stdout).toMatch(/dora\s+dora@example\.com\s+viewer\s+yes/);
    const enabled = await relay.run(admin, ['users', 'enable', 'dora', '--json']);
    expect(JSON.parse(enabled.stdout)).toMatchObject({ username: 'dora', disabled: false });
    expect((await relay.run(home, ['whoami'])).code).toBe(0);
    const self = await relay.run(admin, ['users', 'disable', 'root-admin']);
    expect(self.stderr).toMatch(/\[own_account\]$/m);
  });

  it('deletes a user only when confirmed', async () => {
    await relay.loginAs('viewer', 'gone');
    expect((await relay.run(admin, ['users', 'delete', 'gone'])).code).toBe(2);
    expect((await relay.run(admin, ['users', 'list'])).stdout).toContain('gone');
    const deleted = await relay.run(admin, ['users', 'delete', 'gone', '--yes']);
    expect(deleted.code).toBe(0);
    expect((await relay.run(admin, ['users', 'list'])).stdout).not.toContain('gone');
    expect((await relay.run(admin, ['users', 'delete', 'gone', '--yes'])).stderr).toContain('no user named "gone"');
  });

  it('prints a set-password code and link once; the code sets the password', async () => {
    await relay.loginAs('viewer', 'rhea');
    const issued = await relay.run(admin, ['users', 'reset-password', 'rhea']);
    expect(issued.code).toBe(0);
    expect(issued.stderr).toContain('not shown again');
    const code = /^code: (\S+)$/m.exec(issued.stdout)![1]!;
    expect(issued.stdout).toContain(`/app/set-password?code=${code}`);
    await relay.pipeline.http.post('/api/auth/password-reset').send({ code, new_password: NEW_PASSWORD }).expect(204);
    await relay.pipeline.http.post('/api/auth/login').send({ username: 'rhea', password: NEW_PASSWORD }).expect(200);
  });
});
