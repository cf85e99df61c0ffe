import { apiKeyCredential, startPipeline, userCredential, type Pipeline } from './harness';

describe('GET /config/default-target', () => {
  let pipeline: Pipeline;
  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false, api: { DEFAULT_TARGET_URL: 'http://127.0.0.1:8080/install' } });
  });
  afterAll(() => pipeline.close());

  it("shows viewers the organization's default and the one in effect, as POST set it", async () => {
    const viewer = (await userCredential(pipeline, 'viewer')).authorization;
    const admin = (await userCredential(pipeline, 'admin')).authorization;
    const read = () => pipeline.http.get('/config/default-target').set('authorization', viewer).expect(200);
    expect((await read()).body).toEqual({
      target_url: null,
      effective_target_url: 'http://127.0.0.1:8080/install',
      effective_from: 'install',
    });
    await pipeline.http
      .post('/config/default-target')
      .set('authorization', admin)
      .send({ target_url: 'http://127.0.0.1:8080/org' })
      .expect(200);
    expect((await read()).body).toEqual({
      target_url: 'http://127.0.0.1:8080/org',
      effective_target_url: 'http://127.0.0.1:8080/org',
      effective_from: 'organization',
    });
  });

  it('needs credentials with rules:read', async () => {
    await pipeline.http.get('/config/default-target').expect(401);
    const events = await apiKeyCredential(pipeline, ['events:read']);
    await pipeline.http.get('/config/default-target').set('authorization', events).expect(403);
    const rules = await apiKeyCredential(pipeline, ['rules:read']);
    await pipeline.http.get('/config/default-target').set('authorization', rules).expect(200);
  });
});
