import { randomUUID } from 'node:crypto';
import { DEFAULT_ORGANIZATION_ID, type Principal } from '@relay/core';
import { newEventId, testPrincipal, unauditable } from '@relay/test-support';
import { createRuleService } from './rule.service';
import { createTransformTestService } from './transform-test.service';
import { useServiceDatabase, useTransformRunner } from '../service-test-kit';

// Transformations and pacing on rules (issue 30): saved, compiled at save, audited by hash; transform-test runs a
// transform on a stored webhook in the sandbox (docs/transformations.md).
const admin = testPrincipal();
const store = useServiceDatabase();
const runner = useTransformRunner({ timeoutMs: 300 });
const rules = () =>
  createRuleService({
    repositories: store.repositories(),
    targetPolicy: { allowPrivate: false, allowlist: [] },
    secretKeys: undefined,
    transforms: runner,
  });
const tester = () =>
  createTransformTestService({ repositories: store.repositories(), runner, sensitiveHeaders: ['authorization'] });
const input = (source: string) => ({ source, target_url: 'https://example.com/in', active: true });
const CHAT =
  "addHandler('transform', (request) => {\n  request.body = { text: request.body.a };\n  return request;\n});";

async function storedEvent(ruleId: string, source: string, body: unknown, headers: Record<string, string> = {}) {
  const id = newEventId();
  await store.repositories().events.insertMany([
    {
      id,
      organizationId: DEFAULT_ORGANIZATION_ID,
      source,
      ruleId,
      targetOverride: 'https://example.com/in',
      body: Buffer.from(JSON.stringify(body)),
      headers,
      path: '/org/repo',
      query: { tag: ['a', 'b'] },
      nextAttemptAt: new Date(),
    },
  ]);
  return id;
}

describe('rule transforms and pacing', () => {
  it('saves a transform and pacing, shows the code on the rule and only has_transform in the list', async () => {
    const created = await rules().create(admin, {
      ...input('paced'),
      transform: CHAT,
      forward_path_query: true,
      rate_limit: { limit: 5, period: 'second', burst: 10 },
      max_concurrency: 2,
    });
    expect(created).toMatchObject({
      transform: CHAT,
      has_transform: true,
      forward_path_query: true,
      rate_limit: { limit: 5, period: 'second', burst: 10 },
      max_concurrency: 2,
    });
    const listed = (await rules().list(admin)).find((r) => r.id === created.id)!;
    expect(listed).toMatchObject({ has_transform: true, rate_limit: { limit: 5 } });
    expect(listed).not.toHaveProperty('transform');
    const cleared = await rules().update(admin, created.id, {
      transform: null,
      rate_limit: null,
      max_concurrency: null,
    });
    expect(cleared).toMatchObject({ transform: null, has_transform: false, rate_limit: null, max_concurrency: null });
    expect(cleared.forward_path_query).toBe(true);
  });

  it('a rule without them has none (defaults)', async () => {
    expect(await rules().create(admin, input('plain'))).toMatchObject({
      transform: null,
      has_transform: false,
      forward_path_query: false,
      rate_limit: null,
      max_concurrency: null,
    });
  });

  it('refuses a transform that does not compile, at `transform` with its line, writing and auditing nothing', async () => {
    const before = await store.db.prisma.auditEntry.count();
    const broken = "addHandler('transform', (request) => {\n  request.body = ;\n});";
    await expect(rules().create(admin, { ...input('broken'), transform: broken })).rejects.toMatchObject({
      code: 'validation_failed',
      details: { errors: [{ field: 'transform', message: expect.stringMatching(/^line 2: SyntaxError/) as unknown }] },
    });
    expect(await store.db.prisma.rule.count({ where: { source: 'broken' } })).toBe(0);
    const rule = await rules().create(admin, input('broken-later'));
    await expect(rules().update(admin, rule.id, { transform: broken })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect((await rules().get(admin, rule.id)).transform).toBeNull();
    expect(await store.db.prisma.auditEntry.count()).toBe(before + 1);
  });

  it('audits a transform by its SHA-256, never its code', async () => {
    const created = await rules().create(admin, { ...input('audited'), transform: CHAT });
    await rules().update(admin, created.id, { transform: null, max_concurrency: 3 });
    const entries = await store.auditOf(created.id);
    const digest = expect.stringMatching(/^[0-9a-f]{64}$/) as unknown;
    expect(entries[0]!.metadata).toMatchObject({ transform_sha256: digest });
    expect(entries[1]!.metadata).toEqual({
      changed: ['transform', 'max_concurrency'],
      transform_sha256: null,
      mechanism: 'session',
    });
    expect(JSON.stringify(entries.map((e) => e.metadata))).not.toContain('request.body');
  });

  it('rolls the transform back with its audit entry', async () => {
    const created = await rules().create(admin, input('atomic-transform'));
    await expect(rules().update(unauditable(admin), created.id, { transform: CHAT })).rejects.toThrow();
    expect((await rules().get(admin, created.id)).transform).toBeNull();
  });
});

describe('transform-test', () => {
  let ruleId: string;
  let eventId: string;
  beforeAll(async () => {
    ruleId = (await rules().create(admin, { ...input('tried'), transform: CHAT })).id;
    eventId = await storedEvent(ruleId, 'tried', { a: 'hello' }, { authorization: 'Bearer s3cret', 'x-kind': 'k' });
  });

  it('runs the given code on the stored webhook: masked headers, path, query and context', async () => {
    const code = `addHandler('transform', (request, context) => {
      console.log(request.headers.authorization);
      request.body = { a: request.body.a, path: request.path, query: request.query, context };
      return request;
    });`;
    const result = await tester().test(admin, ruleId, { transform: code, event_id: eventId });
    expect(result).toEqual({
      ok: true,
      request: {
        body: {
          a: 'hello',
          path: '/org/repo',
          query: { tag: ['a', 'b'] },
          context: { event_id: eventId, source: 'tried', rule_id: ruleId },
        },
        headers: expect.objectContaining({ authorization: 'Bearer [masked]', 'x-kind': 'k' }) as unknown,
        path: '/org/repo',
        query: { tag: ['a', 'b'] },
      },
      logs: 'Bearer [masked]\n',
    });
  });

  it("runs the rule's saved transform when no code is given", async () => {
    const result = await tester().test(admin, ruleId, { event_id: eventId });
    expect(result).toMatchObject({ ok: true, request: { body: { text: 'hello' } } });
  });

  it('answers a failure (not an error) with its line and logs', async () => {
    const code = "addHandler('transform', (request) => {\n  console.log('before');\n  throw new Error('boom');\n});";
    expect(await tester().test(admin, ruleId, { transform: code, event_id: eventId })).toEqual({
      ok: false,
      error: { message: 'boom', line: 3, cause: 'error' },
      logs: 'before\n',
    });
  });

  it('answers a runaway with its time limit', async () => {
    const code = "addHandler('transform', () => { while (true) {} });";
    expect(await tester().test(admin, ruleId, { transform: code, event_id: eventId })).toMatchObject({
      ok: false,
      error: { cause: 'timeout' },
    });
  });

  it("refuses another rule's event, another organization's rule, an unknown destination", async () => {
    const other = (await rules().create(admin, input('other-rule'))).id;
    const foreign = await storedEvent(other, 'other-rule', { a: 1 });
    await expect(tester().test(admin, ruleId, { transform: CHAT, event_id: foreign })).rejects.toMatchObject({
      code: 'not_found',
    });
    const org = await store.db.prisma.organization.create({ data: { slug: 'outside', name: 'Outside' } });
    const outsider = { ...admin, orgId: org.id } as Principal;
    await expect(tester().test(outsider, ruleId, { transform: CHAT, event_id: eventId })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      tester().test(admin, ruleId, { transform: CHAT, event_id: eventId, destination_id: randomUUID() }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses to try nothing: no code given and none saved', async () => {
    const bare = (await rules().create(admin, input('bare'))).id;
    const event = await storedEvent(bare, 'bare', { a: 1 });
    await expect(tester().test(admin, bare, { event_id: event })).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });
});
