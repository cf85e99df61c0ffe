import { startPipeline, TEST_SECRET_KEYS, userCredential, type Pipeline } from './harness';

// An organization admin chooses the issuer URL and the api fetches it (discovery, keys): it passes the same network
// policy as a delivery target. (Other suites run with TARGET_ALLOW_PRIVATE=true so their loopback providers pass.)
describe('an organization identity provider issuer and the network policy', () => {
  let pipeline: Pipeline;
  let admin: string;
  beforeAll(async () => {
    pipeline = await startPipeline({
      api: { TARGET_ALLOW_PRIVATE: 'false', SECRET_ENCRYPTION_KEYS: TEST_SECRET_KEYS },
      worker: false,
    });
    admin = (await userCredential(pipeline, 'admin')).authorization;
  });
  afterAll(() => pipeline.close());

  const put = (issuer: string) =>
    pipeline.http
      .put('/api/organization/identity-provider')
      .set('authorization', admin)
      .send({ issuer_url: issuer, client_id: 'relay', provisioning: 'off' });

  it.each(['http://127.0.0.1:8080', 'https://10.0.0.5', 'https://169.254.169.254'])(
    'refuses %s with target_url_rejected, storing nothing',
    async (issuer) => {
      const answer = await put(issuer);
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ code: 'target_url_rejected' });
      expect(await pipeline.store.prisma.organizationIdentityProvider.count()).toBe(0);
    },
  );

  it('accepts a public https issuer', async () => {
    expect((await put('https://id.example.com')).status).toBe(200);
  });
});
