import { startTracing, type Tracer, type TracingSettings } from '@relay/service-kit';
import {
  startOtlpReceiver,
  startTargetServer,
  waitFor,
  type OtlpReceiver,
  type ReceivedSpan,
  type TargetServer,
} from '@relay/test-support';
import supertest from 'supertest';
import type { WorkerRuntime } from '../../apps/delivery-worker/src/runtime';
import { startApiReplica, startPipeline, userCredential, type Pipeline } from './harness';

// Traces end to end (docs/observability.md): the api and the worker export over OTLP/HTTP (JSON here) to a local
// receiver that decodes every export; one webhook's spans are asserted as a tree, through a retry, a destination
// and a hook, and nothing of its payload or its secrets is ever exported.

const PATIENCE = 60_000;
jest.setTimeout(4 * PATIENCE);

const PROVIDER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const PROVIDER_SPAN = 'b7ad6b7169203331';
const PROVIDER_TRACEPARENT = `00-${PROVIDER_TRACE}-${PROVIDER_SPAN}-01`;
const SECRETS = ['payload-secret-9f3a', 'sha256=signature-77c1', 'Bearer provider-token-41d2', 'fixed-header-5e0b'];

let receiver: OtlpReceiver;
let tracers: { api: Tracer; worker: Tracer };
let pipeline: Pipeline;
let admin: string;
let primary: TargetServer;
let destination: TargetServer;
let hooks: TargetServer;

const settings = (serviceName: string): TracingSettings => ({
  url: receiver.url,
  protocol: 'http/json',
  headers: {},
  serviceName,
  sampler: 'parentbased_always_on',
  scheduledDelayMs: 20,
});

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracers = { api: await startTracing(settings('relay-api')), worker: await startTracing(settings('relay-worker')) };
  [primary, destination, hooks] = [await startTargetServer(), await startTargetServer(), await startTargetServer()];
  pipeline = await startPipeline({ worker: false, tracers });
  admin = (await userCredential(pipeline, 'admin')).authorization;
});
afterAll(async () => {
  await pipeline.close();
  await tracers.api.shutdown();
  await tracers.worker.shutdown();
  await Promise.all([primary, destination, hooks].map((t) => t.close()));
  await receiver.close();
});

async function tracedRule(source: string) {
  const rule = (
    await pipeline.http
      .post('/rules')
      .set('authorization', admin)
      .send({
        source,
        target_url: `${primary.url}/${source}`,
        outbound_headers: { set: { 'x-fixed': SECRETS[3] } },
      })
      .expect(201)
  ).body as { id: string };
  await pipeline.http
    .post(`/rules/${rule.id}/destinations`)
    .set('authorization', admin)
    .send({ target_url: `${destination.url}/${source}` })
    .expect(201);
  await pipeline.http
    .post(`/rules/${rule.id}/hooks`)
    .set('authorization', admin)
    .send({ target_url: `${hooks.url}/${source}`, trigger: 'provider_succeeded' })
    .expect(201);
  return rule.id;
}

const ingest = async (http: ReturnType<typeof supertest>, source: string) =>
  (
    await http
      .post(`/${source}`)
      .set('content-type', 'application/json')
      .set('traceparent', PROVIDER_TRACEPARENT)
      .set('tracestate', 'provider=abc')
      .set('x-hub-signature-256', SECRETS[1]!)
      .set('authorization', SECRETS[2]!)
      .send(JSON.stringify({ note: SECRETS[0] }))
      .expect(202)
  ).body.id as string;

const spansNamed = (name: string, where: (s: ReceivedSpan) => boolean = () => true) =>
  receiver.spans.filter((s) => s.name === name && where(s));
const childrenOf = (parent: ReceivedSpan) => receiver.spans.filter((s) => s.parentSpanId === parent.spanId);
const one = (spans: ReceivedSpan[], what: string) => {
  expect([what, spans.length]).toEqual([what, 1]);
  return spans[0]!;
};

// Each test runs its own worker (its settings differ), closed after it whatever happened.
let worker: WorkerRuntime | undefined;
afterEach(async () => {
  await worker?.close();
  worker = undefined;
});

describe('traces of one webhook', () => {
  it('ingest → delivery job (retried, linked) → destination and hook, in one trace; nothing secret exported', async () => {
    worker = pipeline.startWorker();
    await tracedRule('traced');
    primary.replyWith(503, 200);
    const eventId = await ingest(pipeline.http, 'traced');
    await pipeline.waitForStatus(eventId, 'delivered', PATIENCE);
    await hooks.waitForRequests(1, PATIENCE);
    await destination.waitForRequests(1, PATIENCE);
    // Every span of the webhook has been exported: two runs of its job, the destination's, the hook's.
    const runsOf = (s: ReceivedSpan) => s.attributes['relay.event.id'] === eventId;
    await waitFor(
      async () =>
        spansNamed('process deliveries', runsOf).length === 2 &&
        spansNamed('process deliveries', (s) => s.attributes['relay.delivery.id'] !== undefined).length === 1 &&
        spansNamed('process hooks').length === 1 &&
        spansNamed('POST').length === 4 &&
        spansNamed('record outcome').length >= 3
          ? true
          : undefined,
      PATIENCE,
      'the spans of the webhook',
    );

    // Ingest: the server span, a new trace (the provider's traceparent is a link only), its insert and enqueue.
    const ingestSpan = one(spansNamed('POST /{source}'), 'ingest span');
    expect(ingestSpan).toMatchObject({ service: 'relay-api', kind: 2, parentSpanId: '' });
    expect(ingestSpan.traceId).not.toBe(PROVIDER_TRACE);
    expect(ingestSpan.links).toEqual([{ traceId: PROVIDER_TRACE, spanId: PROVIDER_SPAN }]);
    expect(ingestSpan.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/{source}',
      'http.response.status_code': 202,
      'relay.event.id': eventId,
      'relay.source': 'traced',
    });
    const trace = ingestSpan.traceId;
    expect(receiver.spans.every((s) => s.traceId === trace)).toBe(true);
    const insert = one(spansNamed('INSERT events'), 'insert span');
    expect(insert).toMatchObject({ parentSpanId: ingestSpan.spanId, kind: 3 });
    expect(insert.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.operation.name': 'INSERT' });
    const enqueue = one(spansNamed('send deliveries'), 'enqueue span');
    expect(enqueue).toMatchObject({ parentSpanId: ingestSpan.spanId, kind: 4 });
    expect(enqueue.attributes).toMatchObject({ 'messaging.system': 'bullmq', 'messaging.message.id': eventId });

    // The delivery job: two runs, both children of the enqueue; the retry links to the first run.
    const [first, retry] = spansNamed('process deliveries', runsOf).sort(
      (a, b) =>
        Number(a.attributes['relay.job.result'] === 'delivered') -
        Number(b.attributes['relay.job.result'] === 'delivered'),
    ) as [ReceivedSpan, ReceivedSpan];
    for (const run of [first, retry]) {
      expect(run).toMatchObject({ service: 'relay-worker', kind: 5, parentSpanId: enqueue.spanId });
      expect(run.attributes).toMatchObject({
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'process',
        'messaging.destination.name': 'deliveries',
      });
    }
    expect(first.attributes['relay.job.result']).toBe('retry_scheduled');
    expect(first.links).toEqual([]);
    expect(retry.attributes['relay.job.result']).toBe('delivered');
    expect(retry.links).toEqual([{ traceId: trace, spanId: first.spanId }]);
    const names = (run: ReceivedSpan) => childrenOf(run).map((s) => s.name);
    expect(names(first)).toEqual(expect.arrayContaining(['load event', 'POST', 'record outcome']));
    const requestOf = (run: ReceivedSpan) =>
      one(
        childrenOf(run).filter((s) => s.name === 'POST'),
        'request',
      );
    expect(requestOf(first)).toMatchObject({ kind: 3, status: 2 });
    expect(requestOf(first).attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 503,
      'server.address': '127.0.0.1',
      'server.port': primary.port,
    });
    expect(requestOf(retry).attributes).toMatchObject({ 'http.response.status_code': 200 });

    // The destination's job continues the first run (the fan-out happens there), the hook's the delivered run.
    const destinationRun = one(
      spansNamed('process deliveries', (s) => s.attributes['relay.delivery.id'] !== undefined),
      'destination run',
    );
    expect(destinationRun.parentSpanId).toBe(first.spanId);
    expect(requestOf(destinationRun).attributes).toMatchObject({ 'http.response.status_code': 200 });
    const hookRun = one(spansNamed('process hooks'), 'hook run');
    expect(hookRun).toMatchObject({ kind: 5, parentSpanId: retry.spanId });
    expect(requestOf(hookRun).attributes).toMatchObject({ 'server.port': hooks.port });

    // Propagation to targets is off: the provider's own traceparent and tracestate were forwarded as received.
    const [delivered] = primary.requests.slice(-1);
    expect(delivered?.headers).toMatchObject({ traceparent: PROVIDER_TRACEPARENT, tracestate: 'provider=abc' });
    // No payload, signature, credential or fixed header value in any export.
    const exported = Buffer.concat(receiver.bodies).toString('utf8');
    for (const secret of SECRETS) expect([secret, exported.includes(secret)]).toEqual([secret, false]);
    expect(exported).not.toContain(`/traced`.repeat(2));
  });

  it('TRACE_PROPAGATE_TO_TARGETS=true: targets get the relay request span as traceparent, no tracestate', async () => {
    receiver.spans.length = 0;
    worker = pipeline.startWorker({ TRACE_PROPAGATE_TO_TARGETS: 'true' });
    await tracedRule('propagated');
    primary.replyWith(200);
    const eventId = await ingest(pipeline.http, 'propagated');
    await pipeline.waitForStatus(eventId, 'delivered', PATIENCE);
    const sent = primary.requests.filter((r) => r.url === '/propagated');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.tracestate).toBeUndefined();
    const traceparent = String(sent[0]!.headers.traceparent);
    const request = await waitFor(
      async () => receiver.spans.find((s) => s.name === 'POST' && traceparent === `00-${s.traceId}-${s.spanId}-01`),
      PATIENCE,
      'the request span named by the traceparent sent',
    );
    expect(request.traceId).not.toBe(PROVIDER_TRACE);
  });

  it('TRACE_TRUST_INBOUND=true: the provider traceparent is the ingest span parent', async () => {
    receiver.spans.length = 0;
    const replica = startApiReplica(pipeline, { TRACE_TRUST_INBOUND: 'true' }, tracers.api);
    try {
      await ingest(supertest(replica.app), 'trusted');
      const span = await waitFor(
        async () => receiver.spans.find((s) => s.name === 'POST /{source}'),
        PATIENCE,
        'the ingest span',
      );
      expect(span).toMatchObject({ traceId: PROVIDER_TRACE, parentSpanId: PROVIDER_SPAN });
    } finally {
      await replica.close();
    }
  });
});
