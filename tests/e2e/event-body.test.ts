import { DEFAULT_ORGANIZATION_ID } from '@relay/core';
import { newEventId } from '@relay/test-support';
import { randomUUID } from 'node:crypto';
import { apiKeyCredential, createOrganization, startPipeline, userCredential, type Pipeline } from './harness';

// GET /events/{id}/body: the payload as it was received, not the parsed and re-serialised view.
describe('GET /events/{id}/body', () => {
  let pipeline: Pipeline;
  let viewer: string;
  beforeAll(async () => {
    pipeline = await startPipeline({ worker: false });
    viewer = (await userCredential(pipeline, 'viewer')).authorization;
  });
  afterAll(() => pipeline.close());

  const ingest = async (bytes: Buffer, contentType: string) =>
    (await pipeline.http.post('/shop').set('content-type', contentType).send(bytes.toString('utf8')).expect(202)).body
      .id as string;
  const bodyOf = (id: string, authorization = viewer) =>
    pipeline.http
      .get(`/events/${id}/body`)
      .set('authorization', authorization)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });

  it('answers the exact stored bytes with the content type they were sent with', async () => {
    // Spacing, key order, escapes and a duplicate key: all lost by a parse and re-serialise.
    const bytes = Buffer.from('{ "b":1,  "a" : "\\u00e9t\u00e9",\n "a":2, "n": 1.50 }\n', 'utf8');
    const id = await ingest(bytes, 'application/vnd.shop+json; charset=utf-8');
    const res = await bodyOf(id).expect(200);
    expect((res.body as Buffer).toString('hex')).toBe(bytes.toString('hex'));
    expect(res.headers['content-type']).toBe('application/vnd.shop+json; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="event-${id}.json"`);
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(res.headers['cache-control']).toBe('private, no-store');
    // The JSON view of the same event parses it (the last duplicate wins).
    const detail = await pipeline.http.get(`/events/${id}`).set('authorization', viewer).expect(200);
    expect(detail.body.payload).toEqual({ b: 1, a: 2, n: 1.5 });
  });

  it('never serves a stored non-JSON content type under its own type', async () => {
    const id = newEventId();
    await pipeline.store.pool.query(
      `INSERT INTO events (id, organization_id, source, body, headers, status)
       VALUES ($1, $2, 'hand', convert_to('<script>alert(1)</script>', 'UTF8'), $3::jsonb, 'failed')`,
      [id, DEFAULT_ORGANIZATION_ID, JSON.stringify({ 'content-type': 'text/html' })],
    );
    const res = await bodyOf(id).expect(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect((res.body as Buffer).toString()).toBe('<script>alert(1)</script>');
  });

  it('answers application/json where no content type was stored', async () => {
    const id = newEventId();
    await pipeline.store.pool.query(
      `INSERT INTO events (id, organization_id, source, body, headers, status)
       VALUES ($1, $2, 'hand', convert_to('[1,2]', 'UTF8'), '{}'::jsonb, 'queued')`,
      [id, DEFAULT_ORGANIZATION_ID],
    );
    const res = await bodyOf(id).expect(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect((res.body as Buffer).toString()).toBe('[1,2]');
  });

  it("is the organization's own and needs events:read", async () => {
    const id = await ingest(Buffer.from('{"x":1}'), 'application/json');
    const other = await createOrganization(pipeline, 'body-other');
    const outsider = (await userCredential(pipeline, 'admin', other)).authorization;
    const problem = await pipeline.http.get(`/events/${id}/body`).set('authorization', outsider).expect(404);
    expect(problem.body).toMatchObject({ code: 'not_found', detail: 'No such event.' });
    await pipeline.http.get(`/events/${randomUUID()}/body`).set('authorization', viewer).expect(404);
    await pipeline.http.get('/events/not-an-id/body').set('authorization', viewer).expect(404);
    await pipeline.http.get(`/events/${id}/body`).expect(401);
    const sender = await apiKeyCredential(pipeline, ['webhooks:send']);
    await pipeline.http.get(`/events/${id}/body`).set('authorization', sender).expect(403);
    const reader = await apiKeyCredential(pipeline, ['events:read']);
    await bodyOf(id, reader).expect(200);
  });
});
