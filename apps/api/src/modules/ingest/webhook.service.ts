import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AppError,
  checkTargetUrl,
  isValidSource,
  pathAfterSource,
  queryObject,
  sourceFromPath,
  storableHeaders,
  type EventStatus,
  type TargetPolicy,
} from '@relay/core';
import type { IngestGate } from '../limits/ingest-gate';
import type { InFlightLimit } from './in-flight-limit';
import type { LimitHeaders } from '../limits/rate-limits';
import type { HostResolver } from '../platform/host-resolver';
import { dedupClaimOf } from './dedup-ingest';
import type { IngestService } from './ingest.service';
import type { InboundVerifier } from './inbound-verification';
import type { IngestRuleLookup } from './ingest-rules';
import { withOrderingKey } from './ingest-ordering';
import { readJsonBody } from './read-json-body';
import { inSpan, NOOP_TRACER } from '@relay/service-kit';
import { startIngestSpan, startInsertSpan, type IngestTracing } from './ingest-tracing';

export interface WebhookServiceDeps {
  ingest: IngestService;
  /** The organization of the Host the webhook was sent to (refuses unknown hosts and suspended organizations). */
  organizationOf: HostResolver;
  maxBodyBytes: number;
  /** MAX_PAYLOAD_DEPTH: deepest nesting of objects and arrays a payload may have. */
  maxPayloadDepth: number;
  defaultSource: string;
  allowTargetOverride: boolean;
  targetPolicy: TargetPolicy;
  /** First path segments of the relay's own routes (modules/catalog.ts): never a webhook source. */
  reservedSegments: ReadonlySet<string>;
  /** INGEST_MAX_IN_FLIGHT: the webhooks this process stores at once (in-flight-limit.ts); absent: no bound. */
  inFlight?: InFlightLimit;
  /** Rate limit and monthly quota of the organization (modules/limits); absent: none. */
  gate?: IngestGate;
  /** The options of the rule that owns a source (dedup, verification, ordering); absent: none apply. */
  rules?: IngestRuleLookup;
  /** Checks a rule's inbound signature (throws signature_invalid); absent: not checked. */
  verify?: InboundVerifier;
  /** Traces (docs/observability.md); absent: off. */
  tracing?: IngestTracing;
  /** The clock deduplication windows follow (tests move it). */
  now?: () => Date;
}

/** Stored and queued; or a duplicate within its rule's window: the original event, nothing stored. */
export type WebhookAnswer = { id: string; status: 'queued' } | { id: string; status: EventStatus; duplicate: true };

/** A webhook as it arrives: where it was sent, and the message whose body is read with the size limit. */
export interface IncomingWebhookRequest {
  /** The Host (X-Forwarded-Host only from trusted proxies). */
  host: string;
  path: string;
  message: IncomingMessage;
  /** Told the organization once the host is resolved (the response's locals, for the metrics' label). */
  resolved?: { organizationId?: string };
  /** The answer: the ingest span ends when it is sent, with its status code (tracing on). */
  response?: ServerResponse;
}

/** The answer, and the headers the limits give it (RateLimit, RateLimit-Policy): the route sets them. */
export interface WebhookReceipt {
  answer: WebhookAnswer;
  headers: LimitHeaders;
}

const headerOf = (message: IncomingMessage, name: string): string | undefined => {
  const value = message.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

// The query as received: Express keeps the full request line in originalUrl (url may be rewritten by routers).
function queryOf(message: IncomingMessage): Record<string, string | string[]> {
  const url = (message as IncomingMessage & { originalUrl?: string }).originalUrl ?? message.url ?? '';
  const mark = url.indexOf('?');
  return mark < 0 ? {} : queryObject(url.slice(mark + 1));
}

// Public ingest: the organization from the Host, the source from X-Webhook-Source or the path, an
// optional X-Target-Url, then the body, in that order, so a refused webhook is never read.
export function createWebhookService(deps: WebhookServiceDeps) {
  const now = deps.now ?? (() => new Date());
  const tracing = deps.tracing ?? { tracer: NOOP_TRACER, trustInbound: false };
  // The store's wait is what the bound counts, not the body's: a sender trickling its body in holds no slot.
  const stored = <T>(work: () => Promise<T>): Promise<T> => (deps.inFlight ? deps.inFlight.run(work) : work());
  function sourceOf(request: IncomingWebhookRequest): string {
    const fromPath = sourceFromPath(request.path);
    if (fromPath !== undefined && deps.reservedSegments.has(fromPath.toLowerCase())) {
      throw new AppError('not_found', `No route for POST ${request.path}.`);
    }
    const header = headerOf(request.message, 'x-webhook-source');
    const source = header !== undefined && header.trim() !== '' ? header.trim() : (fromPath ?? deps.defaultSource);
    if (!isValidSource(source)) {
      throw new AppError(
        'invalid_source',
        'A source is 1-64 characters: letters, digits, ".", "_" and "-", starting with a letter or digit.',
        { source },
      );
    }
    return source;
  }

  function targetOverrideOf(message: IncomingMessage): string | undefined {
    const header = headerOf(message, 'x-target-url');
    if (header === undefined) return undefined;
    if (!deps.allowTargetOverride) {
      throw new AppError(
        'target_override_disabled',
        'X-Target-Url is refused on public ingest (ALLOW_PUBLIC_TARGET_OVERRIDE is not true).',
      );
    }
    const check = checkTargetUrl(header.trim(), deps.targetPolicy);
    if (!check.ok) throw new AppError('target_url_rejected', check.message, { reason: check.reason });
    return check.url.toString();
  }

  return {
    /** Stores the webhook durably and answers its event id; the delivery is queued. */
    async receive(request: IncomingWebhookRequest): Promise<WebhookReceipt> {
      const span = startIngestSpan(tracing, request);
      const orgId = await deps.organizationOf(request.host);
      if (request.resolved) request.resolved.organizationId = orgId;
      const source = sourceOf(request);
      if (tracing.tracer.enabled) span.setAttributes({ 'relay.organization.id': orgId, 'relay.source': source });
      const targetOverride = targetOverrideOf(request.message);
      // Limits before the body: a refused webhook is neither read nor stored.
      const { admission, headers } = deps.gate ? await deps.gate(orgId) : { admission: undefined, headers: {} };
      try {
        const body = await readJsonBody(request.message, {
          maxBytes: deps.maxBodyBytes,
          maxDepth: deps.maxPayloadDepth,
        });
        // An X-Target-Url override bypasses the rules, so their options do not apply to it.
        const rule = targetOverride === undefined ? ((await deps.rules?.(orgId, source)) ?? null) : null;
        if (rule?.verification && deps.verify) await deps.verify(orgId, rule, body, request.message.headers);
        const webhook = withOrderingKey(rule, {
          orgId,
          source,
          body,
          headers: storableHeaders(request.message.headers),
          path: pathAfterSource(request.path),
          query: queryOf(request.message),
          ...(targetOverride !== undefined ? { targetOverride } : {}),
          ...(tracing.tracer.enabled ? { trace: span } : {}),
        });
        const claim = dedupClaimOf(rule, webhook, now());
        if (claim) {
          const insert = startInsertSpan(tracing.tracer, webhook.trace, true);
          const answer = await inSpan(insert, () => stored(() => deps.ingest.acceptOnce(webhook, claim)));
          span.setAttributes({ 'relay.event.id': answer.id, 'relay.duplicate': answer.duplicate });
          if (!answer.duplicate) return { answer: { id: answer.id, status: 'queued' }, headers };
          admission?.release(); // a duplicate stores nothing: the quota gets its count back
          return { answer, headers };
        }
        const insert = startInsertSpan(tracing.tracer, webhook.trace, false);
        const id = await inSpan(insert, () => stored(() => deps.ingest.accept(webhook)));
        span.setAttributes({ 'relay.event.id': id });
        return { answer: { id, status: 'queued' }, headers };
      } catch (err) {
        // Not stored: the quota gets its count back.
        admission?.release();
        throw err;
      }
    },
  };
}
