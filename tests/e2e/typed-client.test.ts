import { createRelayClient, dataOf, ProblemError } from '../../packages/client/src/index';
import { startPipeline, userCredential, type Pipeline } from './harness';
import { listen } from './sse-client';

// The generated client against the real api: typed paths, the exact body, problems as ProblemError.
describe('@relay/client against the api', () => {
  let pipeline: Pipeline;
  let served: Awaited<ReturnType<typeof listen>>;
  let client: ReturnType<typeof createRelayClient>;
  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
    served = await listen(pipeline.api.app);
    const { authorization } = await userCredential(pipeline, 'viewer');
    client = createRelayClient({ baseUrl: `${served.url}/`, headers: { authorization } });
  });
  afterAll(async () => {
    await served.close();
    await pipeline.close();
  });

  it('reads typed answers and the raw stored body', async () => {
    const sent = '{"z": 1,\n  "a": [true]}';
    const ingested = await fetch(`${served.url}/client-test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: sent,
    });
    const { id } = (await ingested.json()) as { id: string };
    const event = await dataOf(client.GET('/events/{id}', { params: { path: { id } } }));
    expect(event.source).toBe('client-test');
    const body = await client.GET('/events/{id}/body', { params: { path: { id } }, parseAs: 'text' });
    expect(body.data).toBe(sent);
    const target = await dataOf(client.GET('/config/default-target'));
    expect(target.effective_from).toBeNull();
  });

  it('turns a problem document into a ProblemError', async () => {
    const missing = '00000000-0000-7000-8000-000000000001';
    const failure = await dataOf(client.GET('/events/{id}', { params: { path: { id: missing } } })).catch(
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(ProblemError);
    expect(failure).toMatchObject({
      status: 404,
      code: 'not_found',
      detail: 'No such event.',
      title: 'No such resource.',
    });
    const invalid = await dataOf(client.GET('/events', { params: { query: { per_page: 5000 } } })).catch(
      (err: unknown) => err as ProblemError,
    );
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
    expect((invalid as ProblemError).errors.map((e) => e.field)).toContain('per_page');
  });
});
