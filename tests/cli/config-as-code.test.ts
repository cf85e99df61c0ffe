import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCliRelay, type CliRelay } from './cli-harness';

// Configuration as code end to end (docs/config-as-code.md): `relay export` then `relay apply` of the file, with
// its secret reference resolved from the CLI's environment, a plan without --yes, and a refusal at the file's line.

const SECRET = 'cfg-signing-secret-0123456789';
const SECRET_VAR = 'RULE_CFG_GITHUB_SIGNING_SECRET';

describe('relay export and relay apply', () => {
  let relay: CliRelay;
  let admin: string;
  let dir: string;
  let file: string;
  let ruleId: string;
  beforeAll(async () => {
    relay = await startCliRelay();
    admin = await relay.loginAs('admin');
    dir = await mkdtemp(path.join(tmpdir(), 'relay-cli-config-'));
    file = path.join(dir, 'relay.yaml');
    const created = await relay.run(
      admin,
      [
        'rules',
        'create',
        '--name',
        'cfg-github',
        '--source',
        'cfg-github',
        '--target',
        'https://ci.example.com/cfg',
      ].concat(['--signing-secret-stdin']),
      { input: SECRET },
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    ruleId = /Created rule ([0-9a-f-]{36})/.exec(created.stdout)![1]!;
  });
  afterAll(() => relay.close());

  const targetUrl = async () =>
    (await relay.pipeline.store.prisma.rule.findUniqueOrThrow({ where: { id: ruleId } })).targetUrl;
  const apply = (target: string, ...flags: string[]) =>
    relay.run(admin, ['apply', '-f', target, ...flags], { env: { [SECRET_VAR]: SECRET } });

  it('exports to a file with $schema and a reference in place of the secret', async () => {
    const exported = await relay.run(admin, ['export', '-o', file]);
    expect(exported.code).toBe(0);
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^\$schema: \S+\/api\/schemas\/relay-config\.json$/m);
    expect(text).toContain(`\${env:${SECRET_VAR}}`);
    expect(text).not.toContain(SECRET);
    expect(exported.stdout + exported.stderr).not.toContain(SECRET);
  });

  it('applying the exported file to the same organization plans nothing', async () => {
    const result = await apply(file, '--yes');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('No changes: the organization matches the file.');
  });

  it('plans an edited field without --yes and changes nothing, then applies it with --yes', async () => {
    const edited = path.join(dir, 'edited.yaml');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('https://ci.example.com/cfg\n');
    await writeFile(edited, text.replace('https://ci.example.com/cfg\n', 'https://ci.example.com/cfg-v2\n'));

    const planned = await apply(edited);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('~ rule "cfg-github"');
    expect(planned.stdout).toContain('target_url: https://ci.example.com/cfg → https://ci.example.com/cfg-v2');
    expect(planned.stdout + planned.stderr).toContain('--yes');
    expect(await targetUrl()).toBe('https://ci.example.com/cfg');

    const applied = await apply(edited, '--yes');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Applied.');
    expect(await targetUrl()).toBe('https://ci.example.com/cfg-v2');
    expect((await apply(edited)).stdout).toContain('No changes');
  });

  it('refuses a file with an invalid target URL at its line, and applies nothing', async () => {
    const bad = path.join(dir, 'bad.yaml');
    const text = (await readFile(file, 'utf8')).replace('https://ci.example.com/cfg\n', 'not a url\n');
    await writeFile(bad, text);
    const line = text.split('\n').findIndex((l) => l.includes('target_url: not a url')) + 1;
    expect(line).toBeGreaterThan(0);

    const refused = await apply(bad, '--yes');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`${bad}:${line}: `);
    expect(refused.stderr).toMatch(/target_url/);
    expect(await targetUrl()).toBe('https://ci.example.com/cfg-v2');
  });
});
