import { startTargetServer, type TargetServer } from '@relay/test-support';
import { startPipeline, userCredential, type Pipeline } from './harness';

// The sender's Authorization header is its credential for the relay: stored, but forwarded only
// when the rule opts in, and never shown in the events API.
describe('outbound headers: the sender Authorization', () => {
  let pipeline: Pipeline;
  let target: TargetServer;
  let admin: string;
  let viewer: string;
  beforeAll(async () => {
    target = await startTargetServer();
    pipeline = await startPipeline();
    admin = (await userCredential(pipeline, 'admin')).authorization;
    viewer = (await userCredential(pipeline, 'viewer')).authorization;
  });
  afterAll(async () => {
    await pipeline.close();
    await target.close();
  });
  beforeEach(() => {
    target.requests.length = 0;
  });

  async function deliverVia(source: string, outbound?: { forward: string[] }) {
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source, target_url: `${target.url}/${source}`, ...(outbound ? { outbound_headers: outbound } : {}) })
      .expect(201);
    const res = await pipeline.http
      .post(`/${source}`)
      .set({ 'content-type': 'application/json', authorization: 'Bearer provider-token-123', 'x-kept': 'yes' })
      .send('{"a":1}')
      .expect(202);
    await pipeline.waitForStatus(res.body.id, 'delivered');
    const [request] = await target.waitForRequests(1);
    return { id: res.body.id as string, headers: request!.headers };
  }

  it('is not forwarded by default, while other sender headers are', async () => {
    const { id, headers } = await deliverVia('withheld');
    expect(headers.authorization).toBeUndefined();
    expect(headers['x-kept']).toBe('yes');
    // Stored, so a rule changed later (or a retry after opting in) can still forward it.
    expect((await pipeline.eventById(id))?.headers).toMatchObject({ authorization: 'Bearer provider-token-123' });
  });

  it('is forwarded when the rule lists it in outbound_headers.forward', async () => {
    const { headers } = await deliverVia('forwarded', { forward: ['authorization'] });
    expect(headers.authorization).toBe('Bearer provider-token-123');
  });

  it('is masked in the events API for every reader', async () => {
    const { id } = await deliverVia('masked', { forward: ['authorization'] });
    for (const auth of [viewer, admin]) {
      const res = await pipeline.http.get(`/events/${id}`).set('authorization', auth).expect(200);
      expect(res.body.headers).toMatchObject({ authorization: 'Bearer [masked]', 'x-kept': 'yes' });
      expect(JSON.stringify(res.body)).not.toContain('provider-token-123');
    }
  });

  it('refuses header names outside the opt-in list', async () => {
    const res = await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({ source: 'odd', target_url: `${target.url}/odd`, outbound_headers: { forward: ['cookie'] } })
      .expect(400);
    expect(res.body.code).toBe('validation_failed');
  });
});
