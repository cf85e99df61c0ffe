import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProblemError } from '@relay/client';
import { describe, expect, it } from 'vitest';
import { refusalAtLines } from './config-code-commands';
import { formatConfig, parseConfigFile, resolveSecrets } from './config-file';
import { planText } from './plan-text';

const YAML = `# relay.yaml
version: 1
rules:
  - name: github
    source: github
    target_url: https://ci.example.com/hooks
    signing_secret: \${env:RULE_GITHUB_SIGNING_SECRET}
    verification_secret: \${file:./secrets/github}
  - name: stripe
    source: stripe
    target_url: not a url
`;

function configDir() {
  const dir = mkdtempSync(join(tmpdir(), 'relay-apply-'));
  mkdirSync(join(dir, 'secrets'));
  writeFileSync(join(dir, 'secrets', 'github'), 'from-the-file-secret\n');
  writeFileSync(join(dir, 'relay.yaml'), YAML);
  return dir;
}

const sources = (dir: string, env: Record<string, string>) => ({
  env,
  readFile: (p: string) => readFileSync(p, 'utf8'),
  configPath: join(dir, 'relay.yaml'),
});

describe('relay apply: the configuration file', () => {
  it('resolves ${env:…} and ${file:…} (relative to the file, trailing newline dropped)', () => {
    const dir = configDir();
    const file = parseConfigFile(YAML, 'relay.yaml');
    const resolved = resolveSecrets(
      file.document,
      sources(dir, { RULE_GITHUB_SIGNING_SECRET: 'from-the-env-secret' }),
      file,
      'relay.yaml',
    ) as { rules: Record<string, unknown>[] };
    expect(resolved.rules[0]).toMatchObject({
      signing_secret: 'from-the-env-secret',
      verification_secret: 'from-the-file-secret',
    });
    // The file itself is untouched: its references stay references.
    expect(JSON.stringify(file.document)).not.toContain('from-the');
  });

  it('names a missing reference by its name and line, never echoing a secret', () => {
    const dir = configDir();
    const file = parseConfigFile(YAML, 'relay.yaml');
    const missing = () => resolveSecrets(file.document, sources(dir, {}), file, 'relay.yaml');
    expect(missing).toThrow('relay.yaml:7: ${env:RULE_GITHUB_SIGNING_SECRET}: RULE_GITHUB_SIGNING_SECRET is not set');
    writeFileSync(join(dir, 'secrets', 'github'), '');
    const noFile = parseConfigFile(YAML.replace('./secrets/github', './secrets/absent'), 'relay.yaml');
    let message = '';
    try {
      resolveSecrets(noFile.document, sources(dir, { RULE_GITHUB_SIGNING_SECRET: 'from-the-env-secret' }), noFile, 'x');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^x:8: \$\{file:\.\/secrets\/absent\}: cannot read .*secrets\/absent \(ENOENT\)$/);
    expect(message).not.toContain('from-the-env-secret');
  });

  it("maps the api's JSON paths to the file's lines", () => {
    const file = parseConfigFile(YAML, 'relay.yaml');
    expect(file.lineOf('/rules/1/target_url')).toBe(11);
    expect(file.lineOf('/rules/0/name')).toBe(4);
    expect(file.lineOf('/rules/1')).toBe(9);
    // A path to what the file lacks: the nearest enclosing value's line.
    expect(file.lineOf('/rules/1/destinations/0/name')).toBe(9);
    const refusal = new ProblemError({
      title: 'The target URL is not allowed.',
      status: 422,
      code: 'target_url_rejected',
      detail: 'The target is not a valid absolute URL.',
      errors: [{ field: 'rules.1.target_url', path: '/rules/1/target_url', message: 'not a valid absolute URL' }],
    });
    expect(refusalAtLines(refusal, file, 'relay.yaml').message).toBe(
      'The target is not a valid absolute URL. [target_url_rejected]\n' +
        'relay.yaml:11: rules.1.target_url: not a valid absolute URL',
    );
  });

  it('reads JSON as well, and names the line of a syntax error', () => {
    const json = parseConfigFile('{\n  "version": 1,\n  "rules": []\n}\n', 'relay.json');
    expect(json.document).toEqual({ version: 1, rules: [] });
    expect(json.lineOf('/rules')).toBe(3);
    expect(() => parseConfigFile('version: 1\nrules: [\n', 'bad.yaml')).toThrow(
      /^bad\.yaml:\d+: not valid YAML or JSON/,
    );
  });

  it('writes an export as YAML or JSON that reads back the same', () => {
    const doc = {
      $schema: 'https://relay.example.com/api/schemas/relay-config.json',
      version: 1,
      rules: [{ name: 'a' }],
    };
    expect(parseConfigFile(formatConfig(doc, 'yaml'), 'x').document).toEqual(doc);
    expect(JSON.parse(formatConfig(doc, 'json'))).toEqual(doc);
  });
});

describe('relay apply: the plan', () => {
  it('prints + create, ~ change field by field and - delete, secrets only as (changed)', () => {
    const text = planText({
      changes: [
        {
          kind: 'rule',
          action: 'create',
          name: 'github',
          rule: null,
          path: '/rules/0',
          fields: [
            { field: 'target_url', old: null, new: 'https://ci.example.com/hooks' },
            { field: 'signing_secret', old: null, new: '(changed)' },
          ],
        },
        {
          kind: 'destination',
          action: 'update',
          name: 'audit',
          rule: 'github',
          path: '/rules/0/destinations/0',
          fields: [{ field: 'delivery_policy', old: { max_attempts: 3 }, new: null }],
        },
        { kind: 'hook', action: 'delete', name: 'old', rule: 'github', path: '', fields: [] },
      ],
      summary: { create: 1, update: 1, delete: 1 },
      prune: true,
      applied: false,
    });
    expect(text).toBe(
      [
        '+ rule "github"',
        '    target_url: https://ci.example.com/hooks',
        '    signing_secret: (changed)',
        '~ destination "audit" (rule "github")',
        '    delivery_policy: {"max_attempts":3} → (none)',
        '- hook "old" (rule "github")',
        '',
        'Plan: 1 to create, 1 to change, 1 to delete.',
      ].join('\n'),
    );
  });

  it('says when there is nothing to do', () => {
    const plan = { changes: [], summary: { create: 0, update: 0, delete: 0 }, prune: false, applied: false };
    expect(planText(plan)).toBe('No changes: the organization matches the file.');
  });
});
