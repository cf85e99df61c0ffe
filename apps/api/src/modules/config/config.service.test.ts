import { randomBytes } from 'node:crypto';
import { AppError, parseSecretKeys, type Principal } from '@relay/core';
import { configDocumentSchema } from '@relay/contracts';
import { testPrincipal } from '@relay/test-support';
import Ajv2020 from 'ajv/dist/2020';
import type { z } from 'zod';
import { createConfigService } from './config.service';
import { createRuleService } from '../rules/rule.service';
import { createNotificationSettingsService } from '../notifications/notification-settings.service';
import { useServiceDatabase, useTransformRunner } from '../service-test-kit';

// Configuration as code (issue 34, docs/config-as-code.md): export, plan, apply, prune, secrets by keyed hash.
const store = useServiceDatabase();
const runner = useTransformRunner({ timeoutMs: 300 });
const keys = parseSecretKeys(`k1:${randomBytes(32).toString('base64')}`)!;
const policy = { allowPrivate: false, allowlist: [] };
const config = () =>
  createConfigService({
    repositories: store.repositories(),
    targetPolicy: policy,
    secretKeys: keys,
    transforms: runner,
    publicBaseUrl: 'https://relay.example.com',
  });
// The served JSON Schema checks every exported document of these tests.
let validate: ReturnType<Ajv2020['compile']> | undefined;
const validFile = (doc: unknown) => {
  validate ??= new Ajv2020({ allErrors: true, strict: false }).compile(config().schema());
  if (!validate(doc)) throw new Error(JSON.stringify(validate.errors));
};

const SIGNING = 'whsec_signing-secret-of-the-rule';
const VERIFY = 'github-webhook-verification';
const DEST_SECRET = 'destination-signing-secret';
const NOTICE_SECRET = 'notification-secret-value';
const CODE = "addHandler('transform', (request) => request);";

let orgs = 0;
async function emptyOrganization(overrides: Partial<Principal> = {}): Promise<Principal> {
  orgs += 1;
  const org = await store.repositories().organizations.create({ slug: `cfg-${orgs}-${Date.now()}`, name: 'Config' });
  return testPrincipal({ orgId: org.id, ...overrides });
}

type DocumentInput = z.input<typeof configDocumentSchema>;
type RuleInput = NonNullable<DocumentInput['rules']>[number];
type Document = Omit<DocumentInput, 'rules'> & {
  rules: (RuleInput & Required<Pick<RuleInput, 'destinations' | 'hooks'>>)[];
};

// Every option the document takes, with every secret: what a team would keep in git.
const fullDocument = (): Document => ({
  version: 1 as const,
  default_target_url: 'https://fallback.example.com/in',
  notifications: { url: 'https://notices.example.com/relay', secret: NOTICE_SECRET },
  rules: [
    {
      name: 'github',
      source: 'github',
      target_url: 'https://ci.example.com/hooks/github',
      active: true,
      description: 'Pushes and pull requests',
      signing_secret: SIGNING,
      verification: { preset: 'github' as const },
      verification_secret: VERIFY,
      outbound_headers: { forward: ['authorization' as const], set: { 'x-team': 'platform' }, remove: ['x-debug'] },
      dedup: { preset: 'github' as const, window_seconds: 3600 },
      ordering: { header: 'x-github-delivery' },
      delivery_policy: { max_attempts: 5, timeout_seconds: 10 },
      unhealthy_after_seconds: 7200,
      filter: { body: { action: 'opened' } },
      transform: CODE,
      forward_path_query: true,
      rate_limit: { limit: 10, period: 'second' as const, burst: 20 },
      max_concurrency: 4,
      destinations: [
        {
          name: 'audit-log',
          target_url: 'https://audit.example.com/in',
          active: true,
          signing_secret: DEST_SECRET,
          delivery_policy: { max_attempts: 3 },
          filter: { headers: { 'x-github-event': 'push' } },
        },
      ],
      hooks: [
        {
          name: 'on-failure',
          target_url: 'https://pager.example.com/fail',
          trigger: 'provider_failed' as const,
          active: true,
        },
      ],
    },
    {
      name: 'stripe',
      source: 'stripe',
      target_url: 'https://billing.example.com/stripe',
      active: false,
      destinations: [],
      hooks: [],
    },
  ],
});
const parsed = (doc: unknown) => configDocumentSchema.parse(doc);

// The CLI's part, for the tests: every reference of an export replaced by the value it names.
const resolve = (doc: unknown, values: Record<string, string>) =>
  JSON.parse(JSON.stringify(doc).replace(/\$\{env:([A-Z0-9_]+)\}/g, (_m, name: string) => values[name] ?? 'missing'));
const VALUES = {
  RULE_GITHUB_SIGNING_SECRET: SIGNING,
  RULE_GITHUB_VERIFICATION_SECRET: VERIFY,
  RULE_GITHUB_DESTINATION_AUDIT_LOG_SIGNING_SECRET: DEST_SECRET,
  NOTIFICATIONS_SECRET: NOTICE_SECRET,
};

describe('configuration as code', () => {
  it('plans the whole document on an empty organization, applies it, and plans nothing the second time', async () => {
    const admin = await emptyOrganization();
    const dry = await config().apply(admin, parsed(fullDocument()), { dryRun: true, prune: false });
    expect(dry).toMatchObject({ applied: false, summary: { create: 4, update: 2, delete: 0 } });
    const github = dry.changes.find((c) => c.kind === 'rule' && c.name === 'github')!;
    expect(github.fields).toContainEqual({ field: 'signing_secret', old: null, new: '(changed)' });
    expect(github.fields).toContainEqual({
      field: 'target_url',
      old: null,
      new: 'https://ci.example.com/hooks/github',
    });
    expect(await store.repositories().rules.list(admin.orgId)).toEqual([]);

    const applied = await config().apply(admin, parsed(fullDocument()), { dryRun: false, prune: false });
    expect(applied).toMatchObject({ applied: true, summary: { create: 4, update: 2 } });
    const again = await config().apply(admin, parsed(fullDocument()), { dryRun: false, prune: false });
    expect(again).toMatchObject({ applied: false, changes: [], summary: { create: 0, update: 0, delete: 0 } });
  });

  it('exports with references only; the export applied to an empty organization reproduces it', async () => {
    const source = await emptyOrganization();
    await config().apply(source, parsed(fullDocument()), { dryRun: false, prune: false });
    const exported = await config().export(source);
    validFile(exported);
    const text = JSON.stringify(exported);
    for (const secret of Object.values(VALUES)) expect(text).not.toContain(secret);
    expect(exported).toMatchObject({
      $schema: 'https://relay.example.com/api/schemas/relay-config.json',
      notifications: { url: 'https://notices.example.com/relay', secret: '${env:NOTIFICATIONS_SECRET}' },
      rules: [
        {
          name: 'github',
          signing_secret: '${env:RULE_GITHUB_SIGNING_SECRET}',
          verification_secret: '${env:RULE_GITHUB_VERIFICATION_SECRET}',
          transform: CODE,
          destinations: [
            { name: 'audit-log', signing_secret: '${env:RULE_GITHUB_DESTINATION_AUDIT_LOG_SIGNING_SECRET}' },
          ],
          hooks: [{ name: 'on-failure', trigger: 'provider_failed' }],
        },
        { name: 'stripe', active: false },
      ],
    });

    const target = await emptyOrganization();
    await config().apply(target, parsed(resolve(exported, VALUES)), { dryRun: false, prune: false });
    const copy = await config().export(target);
    validFile(copy);
    expect(copy).toEqual(exported);
    // Back on the source, its own export (secrets resolved) plans nothing: the secrets compare by their hash.
    const plan = await config().apply(source, parsed(resolve(exported, VALUES)), { dryRun: true, prune: false });
    expect(plan.changes).toEqual([]);
  });

  it('changes field by field, a changed secret only as "(changed)", and writes one audit entry without secrets', async () => {
    const admin = await emptyOrganization();
    await config().apply(admin, parsed(fullDocument()), { dryRun: false, prune: false });
    const doc = fullDocument();
    doc.rules[0]!.target_url = 'https://ci.example.com/hooks/github-v2';
    doc.rules[0]!.signing_secret = 'whsec_a-brand-new-signing-secret';
    const plan = await config().apply(admin, parsed(doc), { dryRun: false, prune: false });
    expect(plan.changes).toEqual([
      {
        kind: 'rule',
        action: 'update',
        name: 'github',
        rule: null,
        path: '/rules/0',
        fields: [
          {
            field: 'target_url',
            old: 'https://ci.example.com/hooks/github',
            new: 'https://ci.example.com/hooks/github-v2',
          },
          { field: 'signing_secret', old: '(set)', new: '(changed)' },
        ],
      },
    ]);
    const entries = await store.db.prisma.auditEntry.findMany({
      where: { organizationId: admin.orgId, action: 'config.applied' },
      orderBy: { createdAt: 'asc' },
    });
    expect(entries).toHaveLength(2);
    const audit = JSON.stringify(entries);
    for (const secret of [...Object.values(VALUES), 'whsec_a-brand-new-signing-secret'])
      expect(audit).not.toContain(secret);
    expect(entries[1]!.metadata).toMatchObject({ summary: { update: 1 }, changes: plan.changes });
  });

  it('with prune deletes what the document no longer names; without it keeps them', async () => {
    const admin = await emptyOrganization();
    await config().apply(admin, parsed(fullDocument()), { dryRun: false, prune: false });
    const doc = fullDocument();
    doc.rules = [{ ...doc.rules[0]!, destinations: [], hooks: [] }];
    const kept = await config().apply(admin, parsed(doc), { dryRun: true, prune: false });
    expect(kept.changes).toEqual([]);
    const pruned = await config().apply(admin, parsed(doc), { dryRun: false, prune: true });
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.name}`).sort()).toEqual([
      'delete destination audit-log',
      'delete hook on-failure',
      'delete rule stripe',
    ]);
    const rules = await store.repositories().rules.list(admin.orgId);
    expect(rules.map((r) => r.name)).toEqual(['github']);
    expect(await store.repositories().destinations.list(admin.orgId, rules[0]!.id)).toEqual([]);
  });

  it('applies nothing when one object of the document is refused, and names its path', async () => {
    const admin = await emptyOrganization();
    const doc = fullDocument();
    // The second rule takes the first one's source while both are active: refused inside the transaction.
    doc.rules[1] = { ...doc.rules[1]!, source: 'github', active: true };
    const error = await config()
      .apply(admin, parsed(doc), { dryRun: false, prune: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('active_provider_exists');
    expect((error as AppError).details).toMatchObject({ errors: [{ path: '/rules/1/name', field: 'rules.1.name' }] });
    expect(await store.repositories().rules.list(admin.orgId)).toEqual([]);
    expect(await store.repositories().organizations.defaultTarget(admin.orgId)).toBeNull();

    const refused = { ...fullDocument(), default_target_url: 'http://127.0.0.1/in' };
    const rejected = await config()
      .apply(admin, parsed(refused), { dryRun: true, prune: false })
      .catch((e: unknown) => e);
    expect((rejected as AppError).code).toBe('target_url_rejected');
    expect((rejected as AppError).details).toMatchObject({ errors: [{ path: '/default_target_url' }] });
  });

  it('refuses a transform that does not compile at its path, before anything is written', async () => {
    const admin = await emptyOrganization();
    const doc = fullDocument();
    doc.rules[0]!.destinations[0] = {
      ...doc.rules[0]!.destinations[0]!,
      transform: "addHandler('transform', (",
    };
    const error = (await config()
      .apply(admin, parsed(doc), { dryRun: false, prune: false })
      .catch((e: unknown) => e)) as AppError;
    expect(error.code).toBe('validation_failed');
    expect(error.details).toMatchObject({ errors: [{ path: '/rules/0/destinations/0/transform' }] });
    expect(await store.repositories().rules.list(admin.orgId)).toEqual([]);
  });

  it('refuses notification changes without organization:manage (403), and leaves them out of its export', async () => {
    const admin = await emptyOrganization();
    const key = { ...admin, kind: 'api_key' as const, scopes: ['rules:read' as const, 'rules:write' as const] };
    const error = (await config()
      .apply(key, parsed(fullDocument()), { dryRun: true, prune: false })
      .catch((e: unknown) => e)) as AppError;
    expect(error.code).toBe('forbidden');
    const { notifications: _left, ...rest } = fullDocument();
    const plan = await config().apply(key, parsed(rest), { dryRun: false, prune: false });
    expect(plan.applied).toBe(true);
    const exported = await config().export(key);
    expect(exported).not.toHaveProperty('notifications');
    validFile(exported);
    // The same notification settings as stored are no change, so a key may apply a full document that matches.
    await config().apply(admin, parsed(fullDocument()), { dryRun: false, prune: false });
    const same = await config().apply(key, parsed(fullDocument()), { dryRun: true, prune: false });
    expect(same.changes).toEqual([]);
  });

  it('counts a secret stored before hashes were kept as changed once', async () => {
    const admin = await emptyOrganization();
    const rules = createRuleService({
      repositories: store.repositories(),
      targetPolicy: policy,
      secretKeys: keys,
      transforms: runner,
    });
    const rule = await rules.create(admin, {
      name: 'legacy',
      source: 'legacy',
      target_url: 'https://legacy.example.com/in',
      active: true,
      signing_secret: SIGNING,
    });
    const hashed = await store.repositories().rules.findById(admin.orgId, rule.id);
    expect(hashed!.signingSecretHash).toMatch(/^h1:k1:/);
    await store.db.prisma.rule.update({ where: { id: rule.id }, data: { signingSecretHash: null } });
    const doc = parsed({
      version: 1,
      rules: [
        { name: 'legacy', source: 'legacy', target_url: 'https://legacy.example.com/in', signing_secret: SIGNING },
      ],
    });
    const first = await config().apply(admin, doc, { dryRun: false, prune: false });
    expect(first.changes[0]!.fields).toEqual([{ field: 'signing_secret', old: '(set)', new: '(changed)' }]);
    expect((await config().apply(admin, doc, { dryRun: true, prune: false })).changes).toEqual([]);
  });

  it('keeps the hash of a notification secret set through its own endpoint', async () => {
    const admin = await emptyOrganization();
    const notices = createNotificationSettingsService({
      repositories: store.repositories(),
      targetPolicy: policy,
      secretKeys: keys,
    });
    await notices.save(admin, { url: 'https://notices.example.com/relay', secret: NOTICE_SECRET });
    const doc = parsed({
      version: 1,
      notifications: { url: 'https://notices.example.com/relay', secret: NOTICE_SECRET },
    });
    expect((await config().apply(admin, doc, { dryRun: true, prune: false })).changes).toEqual([]);
  });

  it('refuses a secret reference that reached the api unresolved', () => {
    const doc = {
      version: 1,
      rules: [
        { name: 'a', source: 'a', target_url: 'https://a.example.com', signing_secret: '${env:RULE_A_SIGNING_SECRET}' },
      ],
    };
    const result = configDocumentSchema.safeParse(doc);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.path.join('.'))).toContain('rules.0.signing_secret');
  });
});
