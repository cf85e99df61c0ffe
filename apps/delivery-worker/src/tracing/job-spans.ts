import type { AttemptOutcome } from '@relay/core';
import { NOOP_SPAN, type TraceSpan, type Tracer } from '@relay/service-kit';

// The worker's spans (docs/observability.md): one consumer span per run of a job (messaging conventions), its
// parent the `traceparent` the job carries (the ingest's enqueue, or the delivery whose hooks or destinations it
// is), and a link to the run before it (a retry, a wait) when there was one: every attempt of a webhook lands in
// the webhook's trace. Each outbound request is a client span (HTTP conventions) with its status code. No payload,
// header value or target path is recorded: webhook URLs often hold their secret in the path or query.

export interface WorkerTracing {
  tracer: Tracer;
  /** TRACE_PROPAGATE_TO_TARGETS: targets and hooks get the request span's traceparent (and no tracestate). */
  propagate: boolean;
}

/** What a traced job carries in its data (packages/queue, job-catalog.ts). */
export interface TracedJob {
  id?: string | undefined;
  name: string;
  attemptsMade: number;
  data: { trace?: string | undefined; traceLink?: string | undefined };
}

export function startJobSpan(tracer: Tracer, queue: string, job: TracedJob): TraceSpan {
  if (!tracer.enabled) return NOOP_SPAN;
  return tracer.startSpan(`process ${queue}`, {
    kind: 'consumer',
    parent: job.data.trace,
    links: [job.data.traceLink],
    attributes: {
      'messaging.system': 'bullmq',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': queue,
      'messaging.message.id': job.id,
      'relay.job.name': job.name,
    },
  });
}

/** Ends a job's span with what its run came to; a final failure or a fault of the relay marks it failed. */
export function endJobSpan(span: TraceSpan, result: string): void {
  span.setAttributes({ 'relay.job.result': result });
  if (result === 'failed' || result === 'deferred') span.fail(result);
  span.end();
}

/** An outbound request's client span: the target's origin only (never its path or query). */
export function startRequestSpan(
  tracer: Tracer,
  parent: TraceSpan | undefined,
  url: string,
  attributes: Record<string, string | number | undefined>,
): TraceSpan {
  if (!tracer.enabled || parent === undefined) return NOOP_SPAN;
  let target: URL | undefined;
  try {
    target = new URL(url);
  } catch {
    target = undefined;
  }
  const port = target ? Number(target.port || (target.protocol === 'https:' ? 443 : 80)) : undefined;
  return tracer.startSpan('POST', {
    kind: 'client',
    parent,
    attributes: {
      'http.request.method': 'POST',
      'server.address': target?.hostname,
      'server.port': port,
      'url.scheme': target?.protocol.replace(/:$/, ''),
      ...attributes,
    },
  });
}

/** Ends a request span: the status code, or the kind of failure when the target never answered. */
export function endRequestSpan(span: TraceSpan, outcome: AttemptOutcome): void {
  if (outcome.kind === 'response') {
    span.setAttributes({ 'http.response.status_code': outcome.status });
    if (outcome.status >= 400) span.fail(String(outcome.status));
  } else {
    span.fail(outcome.kind === 'network' ? outcome.code : outcome.kind);
  }
  span.end();
}
