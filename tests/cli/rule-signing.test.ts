import { userCredential } from '../e2e/harness';
import { startCliRelay, type CliRelay } from './cli-harness';

// With DEFAULT_SIGNING_SECRET set on the api (as on the worker), a rule or destination without a secret of its own
// shows `signing: "default"`: every delivery is signed, so "none" would be wrong. admin-commands.test.ts covers the
// relay without it (`signing: none`).
describe('signing with DEFAULT_SIGNING_SECRET set on the api', () => {
  let relay: CliRelay;
  let admin: string;
  let api: string;
  beforeAll(async () => {
    relay = await startCliRelay({ DEFAULT_SIGNING_SECRET: 'the-install-default-secret' });
    admin = await relay.loginAs('admin');
    api = (await userCredential(relay.pipeline, 'admin')).authorization;
  });
  afterAll(() => relay.close());

  const ok = async (args: string[], input?: string) => {
    const result = await relay.run(admin, args, input === undefined ? {} : { input });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return result.stdout;
  };
  const get = async (path: string) => (await relay.pipeline.http.get(path).set('authorization', api).expect(200)).body;

  it('says "default secret" for a rule without its own and "own secret" for one with it, API and CLI alike', async () => {
    const plain = /Created rule ([0-9a-f-]{36})/.exec(
      await ok(['rules', 'create', '--source', 'plain', '--target', 'https://plain.example.com']),
    )![1]!;
    expect(await get(`/rules/${plain}`)).toMatchObject({ has_signing_secret: false, signing: 'default' });
    expect(await ok(['rules', 'show', plain])).toMatch(/^signing:\s+default secret$/m);
    const listed = (await get('/rules')) as { rules: { id: string; signing: string }[] };
    expect(listed.rules.find((r) => r.id === plain)?.signing).toBe('default');
    expect(await ok(['rules', 'list'])).toMatch(new RegExp(`${plain}\\s+plain\\s+plain\\s+\\S+\\s+active\\s+default`));

    const own = await ok(
      ['rules', 'create', '--source', 'own', '--target', 'https://own.example.com', '--signing-secret-stdin'],
      'a-rule-secret-of-its-own-0123\n',
    );
    expect(own).toMatch(/^signing:\s+own secret$/m);
  });

  it('says "default secret" for a destination without its own', async () => {
    const ruleId = /Created rule ([0-9a-f-]{36})/.exec(
      await ok(['rules', 'create', '--source', 'routed', '--target', 'https://routed.example.com']),
    )![1]!;
    const added = await ok([
      'rules',
      'destinations',
      'add',
      ruleId,
      '--name',
      'chat',
      '--target',
      'https://chat.example.com/in',
    ]);
    expect(added).toMatch(/^signing:\s+default secret$/m);
    const { destinations } = (await get(`/rules/${ruleId}/destinations`)) as { destinations: { signing: string }[] };
    expect(destinations.map((d) => d.signing)).toEqual(['default']);
  });
});
