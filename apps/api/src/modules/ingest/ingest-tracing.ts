import type { IncomingMessage, ServerResponse } from 'node:http';
import { NOOP_SPAN, type TraceSpan, type Tracer } from '@relay/service-kit';

// The spans of one webhook's ingest (docs/observability.md): the request (HTTP server conventions), the
// group-committed INSERT, and the enqueue of its delivery job, whose `traceparent` the job carries to the worker.
// Ingest is public: an inbound `traceparent` is anyone's, so it is a link, and the parent only when trusted.
// Nothing of the payload and no header value but the user agent is ever recorded.

export interface IngestTracing {
  tracer: Tracer;
  /** TRACE_TRUST_INBOUND: an inbound traceparent becomes the ingest span's parent (else a link only). */
  trustInbound: boolean;
}

const headerOf = (message: IncomingMessage, name: string): string | undefined => {
  const value = message.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The ingest request's server span, ended when the answer is sent (with its status code); no-op when off. */
export function startIngestSpan(
  tracing: IngestTracing,
  request: { host: string; path: string; message: IncomingMessage; response?: ServerResponse | undefined },
): TraceSpan {
  if (!tracing.tracer.enabled) return NOOP_SPAN;
  const { message, response } = request;
  const inbound = headerOf(message, 'traceparent');
  const length = Number(headerOf(message, 'content-length'));
  const span = tracing.tracer.startSpan('POST /{source}', {
    kind: 'server',
    parent: tracing.trustInbound ? inbound : undefined,
    links: [inbound],
    attributes: {
      'http.request.method': 'POST',
      'http.route': '/{source}',
      'url.path': request.path,
      'url.scheme': (message.socket as { encrypted?: boolean } | undefined)?.encrypted ? 'https' : 'http',
      'server.address': request.host || undefined,
      'user_agent.original': headerOf(message, 'user-agent'),
      'http.request.body.size': Number.isFinite(length) ? length : undefined,
      'network.protocol.version': message.httpVersion,
    },
  });
  response?.once('finish', () => {
    span.setAttributes({ 'http.response.status_code': response.statusCode });
    // The HTTP conventions: a 5xx is the server's failure, a 4xx the client's (not an error of this span).
    if (response.statusCode >= 500) span.fail(String(response.statusCode));
    span.end();
  });
  return span;
}

/** The group commit's INSERT, as one webhook waits for it (its batch is shared with others). */
export function startInsertSpan(tracer: Tracer, parent: TraceSpan | undefined, dedup: boolean): TraceSpan {
  if (!tracer.enabled || parent === undefined) return NOOP_SPAN;
  return tracer.startSpan('INSERT events', {
    kind: 'client',
    parent,
    attributes: {
      'db.system.name': 'postgresql',
      'db.operation.name': 'INSERT',
      'db.collection.name': 'events',
      // A deduplicated webhook is stored in a transaction of its own, not in the shared batch.
      'relay.ingest.group_commit': !dedup,
    },
  });
}

/** The delivery job's enqueue (messaging conventions, producer side); its traceparent goes in the job. */
export function startEnqueueSpan(tracer: Tracer, parent: TraceSpan | undefined, eventId: string): TraceSpan {
  if (!tracer.enabled || parent === undefined) return NOOP_SPAN;
  return tracer.startSpan('send deliveries', {
    kind: 'producer',
    parent,
    attributes: {
      'messaging.system': 'bullmq',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      'messaging.destination.name': 'deliveries',
      'messaging.message.id': eventId,
      'relay.event.id': eventId,
    },
  });
}
