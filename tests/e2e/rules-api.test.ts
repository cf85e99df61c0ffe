import { createOrganization, startPipeline, userCredential, type Pipeline } from './harness';

describe('rules and hooks API', () => {
  let pipeline: Pipeline;
  let admin: string;
  beforeAll(async () => {
    pipeline = await startPipeline({ api: { TARGET_ALLOW_PRIVATE: 'false' }, worker: false });
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(() => pipeline.close());
  const audits = async (action: string) => pipeline.store.prisma.auditEntry.count({ where: { action } });

  it('creates, lists, reads, updates and deletes a rule; the signing secret is write-only', async () => {
    const created = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({
        source: 'github',
        target_url: 'https://example.com/in',
        description: 'gh',
        signing_secret: 'a-very-long-secret-value',
      })
      .expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      // No name given: the rule is named after its source.
      name: 'github',
      source: 'github',
      target_url: 'https://example.com/in',
      active: true,
      description: 'gh',
      has_signing_secret: true,
      signing: 'own',
      previous_secret_expires_at: null,
      outbound_headers: { forward: [], set: {}, remove: [] },
      // Every rule option is off unless set (docs/rules.md).
      dedup: null,
      duplicate_count: 0,
      verification: null,
      has_verification_secret: false,
      previous_verification_secret_expires_at: null,
      signature_failures: { count: 0, last_at: null },
      health: { status: 'healthy', reason: null, since: null, failing_since: null, unhealthy_after_seconds: null },
      ordering: null,
      delivery_policy: null,
      filter: null,
      // No transform and no pacing unless set (docs/transformations.md, docs/rules.md "Pacing").
      transform: null,
      has_transform: false,
      forward_path_query: false,
      rate_limit: null,
      max_concurrency: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.body.id as string;
    expect(
      JSON.stringify((await pipeline.http.get('/rules').set('authorization', admin).expect(200)).body),
    ).not.toContain('a-very-long-secret-value');
    expect((await pipeline.http.get(`/rules/${id}`).set('authorization', admin).expect(200)).body.source).toBe(
      'github',
    );
    const patched = await pipeline.http
      .patch(`/rules/${id}`)
      .set('authorization', admin)
      .send({ target_url: 'https://example.org/x', signing_secret: null, active: false })
      .expect(200);
    expect(patched.body).toMatchObject({
      target_url: 'https://example.org/x',
      has_signing_secret: false,
      // The harness sets no DEFAULT_SIGNING_SECRET: without its own secret the rule is unsigned.
      signing: 'none',
      active: false,
    });
    const audit = await pipeline.store.prisma.auditEntry.findFirst({ where: { action: 'rule.updated' } });
    expect(audit?.metadata).toMatchObject({ changed: ['target_url', 'active', 'signing_secret'] });
    expect(JSON.stringify(await pipeline.store.prisma.auditEntry.findMany())).not.toContain('a-very-long-secret-value');
    await pipeline.http.delete(`/rules/${id}`).set('authorization', admin).expect(204);
    await pipeline.http.get(`/rules/${id}`).set('authorization', admin).expect(404);
    expect([await audits('rule.created'), await audits('rule.updated'), await audits('rule.deleted')]).toEqual([
      1, 1, 1,
    ]);
  });

  it('refuses targets the policy blocks, malformed ones and bad fields', async () => {
    for (const [url, reason] of [
      ['http://127.0.0.1/x', 'blocked_address'],
      ['ftp://example.com/', 'scheme'],
      ['https://user:pw@example.com/', 'credentials'],
    ]) {
      const res = await pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'blocked', target_url: url })
        .expect(422);
      expect(res.body).toMatchObject({ code: 'target_url_rejected' });
      expect(String(res.body.reason)).toContain(reason);
    }
    const bad = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: '../x', target_url: 'https://example.com', extra: 1 })
      .expect(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['', 'source']);
  });

  it('keeps at most one active rule per source, also under concurrency', async () => {
    const first = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'stripe', target_url: 'https://example.com/a' })
      .expect(201);
    expect(
      (
        await pipeline.http
          .post('/rules')
          .set('authorization', admin)
          .send({ source: 'stripe', target_url: 'https://example.com/b' })
          .expect(409)
      ).body.code,
    ).toBe('active_provider_exists');
    const inactive = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'stripe', target_url: 'https://example.com/b', active: false })
      .expect(201);
    await pipeline.http
      .patch(`/rules/${inactive.body.id}`)
      .set('authorization', admin)
      .send({ active: true })
      .expect(409);
    await pipeline.http
      .patch(`/rules/${first.body.id}`)
      .set('authorization', admin)
      .send({ active: false })
      .expect(200);
    await pipeline.http
      .patch(`/rules/${inactive.body.id}`)
      .set('authorization', admin)
      .send({ active: true })
      .expect(200);

    const racers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        pipeline.http
          .post('/rules')
          .set('authorization', admin)
          .send({ source: 'race', target_url: `https://example.com/${i}` }),
      ),
    );
    expect(racers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it('manages hooks of a rule; the trigger is fixed at creation', async () => {
    const rule = (
      await pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'hooked', target_url: 'https://example.com/main' })
        .expect(201)
    ).body;
    const hook = await pipeline.http
      .post(`/rules/${rule.id}/hooks`)
      .set('authorization', admin)
      .send({ target_url: 'https://example.com/after', trigger: 'provider_succeeded' })
      .expect(201);
    expect(hook.body).toMatchObject({
      rule_id: rule.id,
      trigger: 'provider_succeeded',
      active: true,
      target_url: 'https://example.com/after',
    });
    const path = `/rules/${rule.id}/hooks/${hook.body.id}`;
    expect(
      (await pipeline.http.patch(path).set('authorization', admin).send({ trigger: 'provider_failed' }).expect(400))
        .body.code,
    ).toBe('validation_failed');
    expect(
      (await pipeline.http.patch(path).set('authorization', admin).send({ active: false }).expect(200)).body,
    ).toMatchObject({ active: false, trigger: 'provider_succeeded' });
    await pipeline.http
      .post(`/rules/${rule.id}/hooks`)
      .set('authorization', admin)
      .send({ target_url: 'http://10.0.0.1/', trigger: 'provider_failed' })
      .expect(422);
    await pipeline.http
      .post(`/rules/${rule.id}/hooks`)
      .set('authorization', admin)
      .send({ target_url: 'https://example.com/', trigger: 'sometimes' })
      .expect(400);
    expect(
      (await pipeline.http.get(`/rules/${rule.id}/hooks`).set('authorization', admin).expect(200)).body.hooks,
    ).toHaveLength(1);
    await pipeline.http.delete(path).set('authorization', admin).expect(204);
    await pipeline.http.delete(path).set('authorization', admin).expect(404);
    expect([await audits('hook.created'), await audits('hook.updated'), await audits('hook.deleted')]).toEqual([
      1, 1, 1,
    ]);
  });

  it("answers 404 for another organization's rules and hooks, and changes nothing", async () => {
    const rule = (
      await pipeline.http
        .post('/rules')
        .set('authorization', admin)
        .send({ source: 'mine', target_url: 'https://example.com/m' })
        .expect(201)
    ).body;
    const hook = (
      await pipeline.http
        .post(`/rules/${rule.id}/hooks`)
        .set('authorization', admin)
        .send({ target_url: 'https://example.com/h', trigger: 'provider_failed' })
        .expect(201)
    ).body;
    const other = (await userCredential(pipeline, 'admin', await createOrganization(pipeline, 'org-b'))).authorization;
    await pipeline.http.get(`/rules/${rule.id}`).set('authorization', other).expect(404);
    await pipeline.http.patch(`/rules/${rule.id}`).set('authorization', other).send({ active: false }).expect(404);
    await pipeline.http.delete(`/rules/${rule.id}`).set('authorization', other).expect(404);
    await pipeline.http.get(`/rules/${rule.id}/hooks`).set('authorization', other).expect(404);
    await pipeline.http
      .post(`/rules/${rule.id}/hooks`)
      .set('authorization', other)
      .send({ target_url: 'https://example.com/z', trigger: 'provider_failed' })
      .expect(404);
    await pipeline.http
      .patch(`/rules/${rule.id}/hooks/${hook.id}`)
      .set('authorization', other)
      .send({ active: false })
      .expect(404);
    await pipeline.http.delete(`/rules/${rule.id}/hooks/${hook.id}`).set('authorization', other).expect(404);
    expect((await pipeline.http.get('/rules').set('authorization', other).expect(200)).body.rules).toEqual([]);
    expect(await pipeline.store.prisma.rule.findUnique({ where: { id: rule.id } })).toMatchObject({ active: true });
    expect(await pipeline.store.prisma.hook.findUnique({ where: { id: hook.id } })).toMatchObject({ active: true });
  });

  it('names rules and hooks: a taken name is a 409 with its code, a malformed one a 400 naming the field', async () => {
    const post = (body: object) => pipeline.http.post('/rules').set('authorization', admin).send(body);
    const base = { source: 'named', target_url: 'https://example.com/n', active: false };
    const first = await post({ ...base, name: 'named-eu' }).expect(201);
    expect(first.body.name).toBe('named-eu');
    const taken = await post({ ...base, name: 'named-eu' }).expect(409);
    expect(taken.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(taken.body).toMatchObject({ status: 409, code: 'rule_name_taken' });
    const bad = await post({ ...base, name: 'has space' }).expect(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field: 'name' })] });
    expect((await post(base).expect(201)).body.name).toBe('named');

    const hooks = `/rules/${first.body.id as string}/hooks`;
    const hook = { target_url: 'https://example.com/h', trigger: 'provider_succeeded' };
    const h1 = await pipeline.http.post(hooks).set('authorization', admin).send(hook).expect(201);
    const h2 = await pipeline.http.post(hooks).set('authorization', admin).send(hook).expect(201);
    expect([h1.body.name, h2.body.name]).toEqual(['provider_succeeded', 'provider_succeeded-2']);
    const clash = await pipeline.http
      .patch(`${hooks}/${h2.body.id as string}`)
      .set('authorization', admin)
      .send({ name: 'provider_succeeded' })
      .expect(409);
    expect(clash.body.code).toBe('hook_name_taken');
  });
});
