import { apiKeyCredential, startPipeline, userCredential, type Pipeline } from './harness';

// Configuration as code over HTTP (issue 34, docs/config-as-code.md): every answer is checked against its declared
// schema by the harness (API_VALIDATE_RESPONSES).
describe('configuration as code over HTTP', () => {
  let pipeline: Pipeline;
  let admin: string;
  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(() => pipeline.close());

  const doc = {
    version: 1,
    rules: [{ name: 'e2e', source: 'e2e', target_url: 'https://e2e.example.com/in' }],
  };

  it('serves the JSON Schema without credentials', async () => {
    const res = await pipeline.http.get('/api/schemas/relay-config.json').expect(200);
    expect(res.body).toMatchObject({ type: 'object', properties: { version: {}, rules: {} } });
  });

  it('plans with dry_run, applies, exports, and plans nothing the second time', async () => {
    const plan = await pipeline.http
      .post('/api/config/apply?dry_run=true')
      .set('authorization', admin)
      .send(doc)
      .expect(200);
    expect(plan.body).toMatchObject({ applied: false, summary: { create: 1 } });
    await pipeline.http.post('/api/config/apply').set('authorization', admin).send(doc).expect(200);
    const exported = await pipeline.http.get('/api/config/export').set('authorization', admin).expect(200);
    expect(exported.body.rules).toContainEqual(expect.objectContaining({ name: 'e2e', active: true }));
    const again = await pipeline.http.post('/api/config/apply').set('authorization', admin).send(doc).expect(200);
    expect(again.body).toMatchObject({ applied: false, changes: [] });
  });

  it('names the JSON path of a bad field, and refuses notification changes without organization:manage', async () => {
    const bad = { version: 1, rules: [{ name: 'x', source: 'x', target_url: 'https://x.example.com', active: 'yes' }] };
    const res = await pipeline.http.post('/api/config/apply').set('authorization', admin).send(bad).expect(400);
    expect(res.body.errors).toContainEqual(
      expect.objectContaining({ field: 'rules.0.active', path: '/rules/0/active' }),
    );
    const key = await apiKeyCredential(pipeline, ['rules:read', 'rules:write']);
    const notices = { version: 1, notifications: { url: 'https://ops.example.com/relay' } };
    const refused = await pipeline.http.post('/api/config/apply').set('authorization', key).send(notices).expect(403);
    expect(refused.body.code).toBe('forbidden');
  });
});
