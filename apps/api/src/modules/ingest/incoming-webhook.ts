import type { OrgId } from '@relay/core';
import type { TraceSpan } from '@relay/service-kit';

/** A webhook accepted for storing: the ingest service's input, and what deduplication and ordering read. */
export interface IncomingWebhook {
  orgId: OrgId;
  source: string;
  body: Buffer;
  headers: Record<string, string>;
  /** The request path after the source segment ("" if none); absent: "". */
  path?: string;
  /** The request's query, a string per key and an array for a repeated key; absent: {}. */
  query?: Record<string, string | string[]>;
  /** A policy-checked X-Target-Url, when the override is enabled. */
  targetOverride?: string;
  /** Send in rule mode: the chosen rule (its target is the override). */
  ruleId?: string;
  /** The owning rule orders delivery: the webhook's ordering key ('' for the whole source). */
  orderingKey?: string;
  /** The ingest request's span (tracing on): the enqueue's span is its child. */
  trace?: TraceSpan | undefined;
}
