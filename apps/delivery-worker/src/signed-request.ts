import { checkTargetUrl, type AttemptOutcome, type TargetPolicy } from '@relay/core';
import type { StoredEvent } from '@relay/db';
import type { TraceSpan } from '@relay/service-kit';
import { deliveryHeaders } from './delivery-request';
import { endRequestSpan, startRequestSpan, type WorkerTracing } from './tracing/job-spans';
import type { Sender } from './sender';
import type { SecretLookup } from './signing-secrets';

export interface SignedRequestDeps {
  sender: Sender;
  secretFor: SecretLookup;
  targetPolicy: TargetPolicy;
  /** Traces (docs/observability.md); absent: off. */
  tracing?: WorkerTracing | undefined;
}

export interface SentRequest {
  outcome: AttemptOutcome;
  responseBody: string | null;
  durationMs: number;
  startedAt: Date;
  finishedAt: Date;
}

// One outgoing request of an event, main delivery or hook alike: the URL is checked against the
// target policy (the sender checks every address it dials), then the payload goes out signed with
// the rule's secrets or the default one, with the inbound headers the rule forwards, plus any
// headers of the caller's own. The rule's own target (`ruleTarget`) also gets the rule's fixed
// headers and may have a time-out of its own (the rule's delivery policy); hooks get neither.
export async function sendSignedRequest(
  deps: SignedRequestDeps,
  event: StoredEvent,
  request: {
    url: string;
    ruleId: string | null;
    extraHeaders?: Record<string, string>;
    ruleTarget?: boolean;
    timeoutMs?: number | undefined;
    /** `webhook-id` when not the event id: a destination delivery has its own. */
    webhookId?: string;
    /** The job's span (tracing on): the request is its child span. */
    span?: TraceSpan | undefined;
    /** The attempt's number, on the request's span. */
    attemptNumber?: number;
  },
  now: () => number,
): Promise<SentRequest> {
  const startedAt = new Date(now());
  const span = deps.tracing
    ? startRequestSpan(deps.tracing.tracer, request.span, request.url, {
        'http.request.resend_count': request.attemptNumber !== undefined ? request.attemptNumber - 1 : undefined,
      })
    : undefined;
  const check = checkTargetUrl(request.url, deps.targetPolicy);
  let outcome: AttemptOutcome;
  let responseBody: string | null = null;
  let durationMs = 0;
  if (!check.ok) {
    outcome =
      check.reason === 'blocked_address' || check.reason === 'blocked_host' || check.reason === 'blocked_port'
        ? { kind: 'blocked', message: check.message }
        : { kind: 'invalid_target', message: check.message };
  } else {
    const { secrets, outbound } = await deps.secretFor(event.organizationId, request.ruleId);
    const options = { fixed: request.ruleTarget, webhookId: request.webhookId };
    const headers = {
      ...deliveryHeaders(event, secrets, Math.floor(now() / 1000), outbound, options),
      ...request.extraHeaders,
    };
    // TRACE_PROPAGATE_TO_TARGETS: the relay's traceparent replaces a forwarded one, and the provider's tracestate
    // (which belongs to its traceparent) goes; off, both are forwarded like any header the rule forwards.
    if (deps.tracing?.propagate && span?.traceparent !== undefined) {
      delete headers['tracestate'];
      headers['traceparent'] = span.traceparent;
    }
    ({ outcome, responseBody, durationMs } = await deps.sender.send({
      url: request.url,
      body: Buffer.from(event.body),
      headers,
      timeoutMs: request.timeoutMs,
    }));
  }
  if (span) endRequestSpan(span, outcome);
  return { outcome, responseBody, durationMs, startedAt, finishedAt: new Date(startedAt.getTime() + durationMs) };
}
