import { readFileSync } from 'node:fs';
import path from 'node:path';
import { userCredential } from '../e2e/harness';
import { startCliRelay, type CliRelay } from './cli-harness';

const FORBIDDEN = /^error: .*\[forbidden\]$/m;
const NEW_PASSWORD = 'Another-Horse-Battery-7';

describe('relay keys, tokens, users and audit', () => {
  let relay: CliRelay;
  let admin: string;
  let viewer: string;
  let api: string;
  beforeAll(async () => {
    relay = await startCliRelay();
    [admin, viewer] = await Promise.all([relay.loginAs('admin', 'root-admin'), relay.loginAs('viewer', 'vera')]);
    api = (await userCredential(relay.pipeline, 'admin')).authorization;
  });
  afterAll(() => relay.close());

  const withToken = (token: string, url: string) =>
    relay.pipeline.http.get(url).set('authorization', `Bearer ${token.trim()}`);

  it('creates an API key whose secret is printed once on stdout alone, lists it and deletes it when confirmed', async () => {
    const created = await relay.run(admin, ['keys', 'create', '--name', 'ci', '--scope', 'events:read,rules:read']);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('not shown again');
    const token = created.stdout.trim();
    expect(token).toMatch(/^\S+$/);
    // The key works with exactly its scopes.
    await withToken(token, '/rules').expect(200);
    await withToken(token, '/api/users').expect(403);

    const list = await relay.run(admin, ['keys', 'list']);
    expect(list.stdout).toMatch(/ci\s+\S+…\s+events:read,rules:read\s+/);
    expect(list.stdout).not.toContain(token);
    const keys = JSON.parse((await relay.run(admin, ['keys', 'list', '--json'])).stdout) as {
      api_keys: { id: string; name: string }[];
    };
    const id = keys.api_keys.find((k) => k.name === 'ci')!.id;

    const unconfirmed = await relay.run(admin, ['keys', 'delete', id]);
    expect(unconfirmed.code).toBe(2);
    await withToken(token, '/rules').expect(200);
    expect((await relay.run(admin, ['keys', 'delete', id, '--yes'])).code).toBe(0);
    await withToken(token, '/rules').expect(401);
  });

  it('passes the API refusals of keys through: a bad scope (validation) and a viewer (forbidden)', async () => {
    const bad = await relay.run(admin, ['keys', 'create', '--name', 'x', '--scope', 'everything']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: .*scopes.*\[validation_failed\]$/m);
    const viewerList = await relay.run(viewer, ['keys', 'list']);
    expect(viewerList.code).toBe(1);
    expect(viewerList.stderr).toMatch(FORBIDDEN);
    const json = await relay.run(admin, ['keys', 'create', '--name', 'json', '--scope', 'webhooks:send', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      name: 'json',
      scopes: ['webhooks:send'],
      token: expect.any(String),
    });
  });

  it("manages the caller's personal tokens and says which one the profile uses", async () => {
    const created = await relay.run(viewer, ['tokens', 'create', '--name', 'laptop', '-q']);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    const token = created.stdout.trim();
    expect((await withToken(token, '/api/auth/me').expect(200)).body.user.username).toBe('vera');

    const list = await relay.run(viewer, ['tokens', 'list']);
    expect(list.stdout).toMatch(/laptop/);
    expect(list.stdout).toMatch(/relay CLI on /);
    const profileToken = JSON.parse(readFileSync(path.join(viewer, '.config', 'webhook-relay', 'config.json'), 'utf8'))
      .profiles.default.token_id as string;
    expect(list.stderr).toContain(`signs in with token ${profileToken}`);
    const tokens = JSON.parse((await relay.run(viewer, ['tokens', 'list', '--json'])).stdout) as {
      tokens: { id: string; name: string }[];
    };
    const id = tokens.tokens.find((t) => t.name === 'laptop')!.id;
    expect((await relay.run(viewer, ['tokens', 'delete', id])).code).toBe(2);
    await withToken(token, '/api/auth/me').expect(200);
    expect((await relay.run(viewer, ['tokens', 'delete', id, '--yes'])).code).toBe(0);
    await withToken(token, '/api/auth/me').expect(401);
    // The profile's own token is untouched.
    expect((await relay.run(viewer, ['whoami'])).code).toBe(0);
  });

  it('lists users, adds one with a password from stdin and changes a role by username', async () => {
    const list = await relay.run(admin, ['users', 'list']);
    expect(list.stdout).toMatch(/vera\s+vera@example.com\s+viewer/);
    const added = await relay.run(
      admin,
      ['users', 'add', 'newbie', '--email', 'newbie@example.com', '--password-stdin'],
      {
        input: `${NEW_PASSWORD}\n`,
      },
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/Added newbie \(viewer\)/);
    // The password from stdin is the one that signs in.
    const login = await relay.pipeline.http
      .post('/api/auth/login')
      .send({ username: 'newbie', password: NEW_PASSWORD });
    expect(login.status).toBe(200);

    const promoted = await relay.run(admin, ['users', 'set-role', 'newbie', 'admin']);
    expect(promoted).toMatchObject({ code: 0, stdout: 'newbie is now admin.\n' });
    const users = (await relay.pipeline.http.get('/api/users').set('authorization', api).expect(200)).body.users as {
      id: string;
      username: string;
      role: string;
    }[];
    const newbie = users.find((u) => u.username === 'newbie')!;
    expect(newbie.role).toBe('admin');
    expect(JSON.parse((await relay.run(admin, ['users', 'set-role', newbie.id, 'viewer', '--json'])).stdout).role).toBe(
      'viewer',
    );

    expect((await relay.run(admin, ['users', 'set-role', 'nobody-here', 'admin'])).stderr).toContain(
      'no user named "nobody-here"',
    );
    expect((await relay.run(admin, ['users', 'set-role', 'newbie', 'owner'])).code).toBe(2);
    const refused = await relay.run(viewer, ['users', 'set-role', 'vera', 'admin']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(FORBIDDEN);
    const refusedList = await relay.run(viewer, ['users', 'list']);
    expect(refusedList.stderr).toMatch(FORBIDDEN);
  });

  it("shows the audit log newest first, in pages; --json is the API's page", async () => {
    await relay.run(admin, ['tokens', 'create', '--name', 'audited']);
    const table = await relay.run(viewer, ['audit']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^TIME\s+ACTOR\s+ACTION\s+RESOURCE\s+DETAILS$/);
    expect(table.stdout.split('\n')[1]).toMatch(/root-admin@example.com\s+token.created\s+token [0-9a-f-]{36}/);
    const page = JSON.parse((await relay.run(viewer, ['audit', '--json', '--per-page', '2', '--page', '2'])).stdout);
    expect(page).toMatchObject({ page: 2, per_page: 2 });
    expect(page.entries).toHaveLength(2);
    const stored = await relay.pipeline.store.prisma.auditEntry.findMany({
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    expect(page.entries.map((e: { id: string }) => e.id)).toEqual(stored.slice(2, 4).map((e) => e.id));
    const first = await relay.run(viewer, ['audit', '--per-page', '1']);
    expect(first.stderr).toMatch(/Page 1 of \d+ \(\d+ entries\): --page 2 for more/);
    expect((await relay.run(viewer, ['audit', '--page', '0'])).code).toBe(2);
  });

  it('filters the audit log by action, actor, resource and time', async () => {
    await relay.run(admin, ['tokens', 'create', '--name', 'filtered']);
    const stored = await relay.pipeline.store.prisma.auditEntry.findMany({ where: { action: 'token.created' } });
    const json = async (...args: string[]) =>
      JSON.parse((await relay.run(viewer, ['audit', '--json', ...args])).stdout);
    const created = await json('--action', 'token.created');
    expect(created.total).toBe(stored.length);
    expect(new Set(created.entries.map((e: { action: string }) => e.action))).toEqual(new Set(['token.created']));
    const either = await json('--action', 'token.created', '--action', 'user.created');
    expect(either.total).toBe(
      await relay.pipeline.store.prisma.auditEntry.count({
        where: { action: { in: ['token.created', 'user.created'] } },
      }),
    );
    const one = await json(
      '--resource-type',
      'token',
      '--resource',
      stored[0]!.resourceId,
      '--actor',
      stored[0]!.actorEmail,
    );
    expect(one.entries.map((e: { id: string }) => e.id)).toEqual([stored[0]!.id]);
    expect((await json('--action', 'token.created', '--from', '2999-01-01')).total).toBe(0);
    expect((await json('--action', 'token.created', '--to', '1h')).total).toBe(0);
  });
});
